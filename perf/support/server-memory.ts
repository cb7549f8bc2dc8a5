// The ten-million-movement database is about 10 GB of rows and indexes. With a server's default InnoDB
// buffer pool (128 MB on MariaDB and MySQL 8 alike) every insert of the seed and every scan of the
// hand-written baselines waits on the disk: the seed took about two and a half hours on a 2-core machine
// and one baseline ten minutes. Both measure the disk, not the service. A server that runs such a
// database in production gives InnoDB most of its memory, so the benchmark asks for that when it may:
// the pool grows to half the machine's memory (at most 16 GiB) if it is smaller, and the redo log to
// 2 GiB on a MariaDB that can change it at run time (10.9 and later). SET GLOBAL needs the right to
// change server settings; without it, or with BENCH_SERVER_MEMORY=keep, the server is left as it is and
// the line says so. The change lasts until the server restarts; nothing is written to its configuration.
import { totalmem } from 'node:os'
import type { Pool } from '../../src/store/pool.js'

const GiB = 1024 ** 3

export async function sizeServerMemory(pool: Pool): Promise<string> {
  const [[settings]] = (await pool.query(
    'SELECT @@innodb_buffer_pool_size AS pool, @@version AS version, @@innodb_log_file_size AS log',
  )) as unknown as [[{ pool: number | string; version: string; log: number | string }]]
  const current = Number(settings.pool)
  const wanted = Math.min(16 * GiB, Math.floor(totalmem() / 2 / GiB) * GiB)
  const describe = (bytes: number) => `${(bytes / GiB).toFixed(bytes < GiB ? 2 : 0)} GiB`
  if (process.env.BENCH_SERVER_MEMORY === 'keep') return `InnoDB buffer pool ${describe(current)}, left as it is (BENCH_SERVER_MEMORY=keep)`
  if (current >= wanted) return `InnoDB buffer pool ${describe(current)}`
  try {
    await pool.query(`SET GLOBAL innodb_buffer_pool_size = ${wanted}`)
    const mariadb = /mariadb/i.test(settings.version)
    if (mariadb && Number(settings.log) < 2 * GiB) await pool.query(`SET GLOBAL innodb_log_file_size = ${2 * GiB}`).catch(() => undefined)
    const [[after]] = (await pool.query('SELECT @@innodb_buffer_pool_size AS pool')) as unknown as [[{ pool: number | string }]]
    return `InnoDB buffer pool raised from ${describe(current)} to ${describe(Number(after.pool))} until the server restarts (BENCH_SERVER_MEMORY=keep leaves it)`
  } catch (error) {
    return `InnoDB buffer pool ${describe(current)}: could not raise it (${(error as Error).message}); the seed and the baselines will wait on the disk`
  }
}
