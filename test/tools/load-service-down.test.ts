// A load started while nothing listens on --url waits for the service like any later request and gives
// up after --retry-for with exit status 2, naming the service's refusal, never a MySQL server the loader
// does not use. The command line's refusal line names the address that refused.
import { connect, createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { refusedConnectionMessage } from '../../src/cli/refused-connection.js'
import { file, ndjson } from '../support/load-fixtures.js'
import { runCli } from '../support/run-cli.js'

/** A port nothing listens on: one the system gave out and that is closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

t.test('a load against a service that is down waits --retry-for, then exits 2 naming the service', async (t) => {
  const port = await closedPort()
  const input = file('service-down.ndjson', ndjson([{ code: 'A1', name: 'one' }]))
  const ran = await runCli([
    'load',
    input,
    '--set',
    'Catalog_Products',
    '--map',
    'code=Code',
    '--map',
    'name=Description',
    '--url',
    `http://127.0.0.1:${port}/api/v4/`,
    '--retry-for',
    '1',
  ]).done
  t.equal(ran.code, 2, ran.stderr)
  t.match(ran.stderr, /the service did not answer: .*gave up after 1 s/)
  t.notMatch(ran.stderr, 'MySQL')
})

t.test("a refusal names the address that refused; DATABASE_URL's only when it is the database's", async (t) => {
  const port = await closedPort()
  const refused = await new Promise<unknown>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('error', resolve)
  })
  const service = refusedConnectionMessage(refused, 'mysql://root@127.0.0.1:3306/odata_registers')
  t.equal(service, `Nothing answers at 127.0.0.1:${port} (connection refused): is the service running there?`)
  const database = refusedConnectionMessage(refused, `mysql://app:secret@127.0.0.1:${port}/odata_registers`)
  t.equal(
    database,
    `No MySQL server answers at mysql://app:***@127.0.0.1:${port}/odata_registers: start one (make run does) or set DATABASE_URL`,
  )
  t.equal(refusedConnectionMessage(new Error('other'), 'mysql://root@127.0.0.1:3306/x'), undefined)
})
