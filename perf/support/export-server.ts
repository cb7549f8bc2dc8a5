// The processes the export benchmark measures, each a child of its own so that its memory is its own:
//   service PORT       the whole service on the bench database (answers HTTP until killed);
//   baseline           a raw mysql2 stream of the given SQL, each row serialised with JSON.stringify,
//                      reporting rows and seconds over IPC and exiting.
// Usage: node build/perf/support/export-server.js service PORT | baseline   (the SQL arrives over IPC; the
// service stops when sent 'exit')
import type { Connection as CallbackConnection } from 'mysql2'
import { startServer } from '../../src/http/server.js'
import { loadModel } from '../../src/model/load-model.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { createPool } from '../../src/store/pool.js'
import { benchAddress } from './bench-database.js'

const [mode, portText] = process.argv.slice(2)
const pool = createPool(benchAddress())

if (mode === 'service') {
  await startServer(createServiceContext(loadModel('config/demo.json'), pool, process.env), { host: '127.0.0.1', port: Number(portText) })
  // Asked to stop, it exits by itself, so that a `--cpu-prof` run writes its profile.
  process.on('message', (message) => {
    if (message === 'exit') process.exit(0)
  })
  process.send?.({ ready: true })
} else {
  process.once('message', async (message: { sql: string }) => {
    const connection = await pool.getConnection()
    const raw = (connection as unknown as { connection: CallbackConnection }).connection
    const started = process.hrtime.bigint()
    let rows = 0
    let bytes = 0
    let buffer = ''
    await new Promise<void>((resolve, reject) => {
      raw
        .query(message.sql)
        .stream({ highWaterMark: 256 })
        .on('data', (row: unknown) => {
          buffer += (rows === 0 ? '' : ',') + JSON.stringify(row)
          rows++
          if (buffer.length >= 65536) {
            bytes += buffer.length
            buffer = ''
          }
        })
        .on('end', () => resolve())
        .on('error', reject)
    })
    bytes += buffer.length
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    connection.release()
    process.send?.({ rows, seconds, bytes }, () => process.exit(0))
  })
  process.send?.({ ready: true })
}
