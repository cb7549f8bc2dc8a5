// Exits 0 when a MySQL server answers at DATABASE_URL (or 127.0.0.1:3306 as root), 1 otherwise.
import mysql from 'mysql2/promise'

const url = new URL(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/')
try {
  const connection = await mysql.createConnection({
    host: url.hostname || '127.0.0.1',
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    connectTimeout: 2000,
  })
  await connection.query('SELECT 1')
  await connection.end()
  process.exit(0)
} catch {
  process.exit(1)
}
