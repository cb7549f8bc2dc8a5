// `GET /health` and `GET /ready` without credentials: up while the process serves; ready only when MySQL
// answers and holds the schema at the code's version (a dropped column, an old totals layout, an
// unreachable server each make it 503 with the reason).
import net from 'node:net'
import t from 'tap'
import { startServer } from '../../src/http/server.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { createPool } from '../../src/store/pool.js'
import { rawRequest, startTestService } from '../support/test-service.js'

const service = await startTestService('http_health')
t.teardown(() => service.close())

t.test('/health answers without credentials', async (t) => {
  const response = await service.request('GET', '/health')
  t.equal(response.status, 200)
  t.equal(response.json().status, 'up')
  t.equal(response.json().pid, process.pid)
  t.equal((await service.request('POST', '/health')).status, 405)
})

t.test('/ready: ready on a migrated database, unready when the schema is behind the code', async (t) => {
  const ready = await service.request('GET', '/ready')
  t.equal(ready.status, 200)
  t.equal(ready.json().status, 'ready')

  await service.database.pool.query('ALTER TABLE c_Warehouses DROP COLUMN Description')
  const missing = await service.request('GET', '/ready')
  t.equal(missing.status, 503)
  t.same(missing.json().problems, ['column c_Warehouses.Description is missing'])
  t.equal(missing.headers['retry-after'], '5')
  await service.database.pool.query("ALTER TABLE c_Warehouses ADD COLUMN Description VARCHAR(100) NOT NULL DEFAULT ''")

  const [rows] = (await service.database.pool.query("SELECT `value` FROM `_service_state` WHERE `name` = 'totals_layout'")) as unknown as [
    { value: string }[],
  ]
  const layouts = JSON.parse(rows[0]!.value) as Record<string, number>
  const table = Object.keys(layouts)[0]!
  await service.database.pool.query("UPDATE `_service_state` SET `value` = ? WHERE `name` = 'totals_layout'", [
    JSON.stringify({ ...layouts, [table]: 0 }),
  ])
  const old = await service.request('GET', '/ready')
  t.equal(old.status, 503)
  t.match(old.json().problems, [new RegExp(`totals ${table} are at layout 0`)])
  await service.database.pool.query("UPDATE `_service_state` SET `value` = ? WHERE `name` = 'totals_layout'", [rows[0]!.value])
  t.equal((await service.request('GET', '/ready')).status, 200, 'ready again once the schema is back')
})

t.test('/ready: unready while the database is unreachable, /health still up', async (t) => {
  // The service reaches MySQL through a TCP relay of the test's own; closing the relay takes the database away.
  const address = service.database.address
  const sockets = new Set<net.Socket>()
  const relay = net.createServer((client) => {
    const upstream = net.connect(address.port, address.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => undefined)
      socket.on('close', () => sockets.delete(socket))
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  const relayPort = (relay.address() as net.AddressInfo).port
  const pool = createPool({ ...address, host: '127.0.0.1', port: relayPort }, { connectTimeout: 500 })
  const server = await startServer(createServiceContext(service.model, pool), { host: '127.0.0.1', port: 0 })
  t.teardown(async () => {
    server.close()
    await pool.end().catch(() => undefined)
  })
  t.equal((await rawRequest(server.port, 'GET', '/ready')).status, 200, 'ready through the relay')

  await new Promise<void>((resolve) => {
    relay.close(() => resolve())
    for (const socket of sockets) socket.destroy()
  })
  const unready = await rawRequest(server.port, 'GET', '/ready')
  t.equal(unready.status, 503)
  t.match(unready.json().problems, [/the database (is not reachable|did not answer)/])
  t.equal((await rawRequest(server.port, 'GET', '/health')).status, 200, 'the process is still up')
})
