// Exits 0 when a MySQL server answers at DATABASE_URL (or 127.0.0.1:3306 as root), 1 otherwise. DATABASE_URL
// is read by the service's own parser (src/store/database-url.ts, built by `make build`), so every form the
// service accepts is accepted here: with several hosts (the nodes of a Galera cluster), one answering is
// enough, as the service's pool goes on to the next host while one does not answer.
import { existsSync } from 'node:fs'
import mysql from 'mysql2/promise'

const parser = new URL('../build/src/store/database-url.js', import.meta.url)
if (!existsSync(parser)) {
  console.error('db-ping: the build is missing; run make build first')
  process.exit(1)
}
const { parseDatabaseUrl } = await import(parser.href)

let address
try {
  address = parseDatabaseUrl(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_registers')
} catch (error) {
  console.error(error.message)
  process.exit(1)
}
for (const { host, port } of address.hosts ?? [{ host: address.host, port: address.port }]) {
  try {
    const connection = await mysql.createConnection({ host, port, user: address.user, password: address.password, connectTimeout: 2000 })
    await connection.query('SELECT 1')
    await connection.end()
    process.exit(0)
  } catch {
    // The next host, if any.
  }
}
process.exit(1)
