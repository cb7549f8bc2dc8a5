// The two servers the GET-by-key benchmark compares, each run in a child process of its own:
//   service  the project's whole pipeline (mount, auth, path resolution, handler, JSON writer);
//   bare     a bare uWS handler that runs the same mysql2 query and answers the same bytes.
//   service-serialize  the service behind the request-serialising front (HTTP_PIPELINING=serialize).
// Usage: node build/perf/support/key-read-servers.js service|service-serialize|bare PORT   (over IPC: 'cpu' → process.cpuUsage(), 'exit')
import * as uws from '../../src/http/uws.js'
import { startListener } from '../../src/pipelining/start-listener.js'
import { loadModel } from '../../src/model/load-model.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { createPool } from '../../src/store/pool.js'
import { benchAddress } from './bench-database.js'

const [mode, portText] = process.argv.slice(2)
const port = Number(portText)
const model = loadModel('config/demo.json')
const pool = createPool(benchAddress())
const set = model.entitySetByName.get('Catalog_Products')!
const columns = set.properties.map((p) => `\`${p.column}\``).join(', ')
const sql = `SELECT ${columns} FROM \`${set.table}\` WHERE \`Ref_Key\` = ? LIMIT 1`

if (mode === 'service' || mode === 'service-serialize') {
  const pipelining = mode === 'service-serialize' ? 'serialize' : 'uws'
  await startListener(createServiceContext(model, pool, process.env), { host: '127.0.0.1', port, pipelining })
} else {
  const app = uws.App()
  app.get('/*', (res, req) => {
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    const url = req.getUrl()
    const key = url.slice(url.indexOf("guid'") + 5, url.indexOf("guid'") + 41)
    const host = req.getHeader('host')
    pool.execute({ sql, rowsAsArray: true }, [key]).then(([rows]) => {
      if (aborted) return
      const row = (rows as unknown[][])[0]!
      const body =
        `{"@odata.context":"http://${host}/odata/standard.odata/v4/$metadata#Catalog_Products/$entity","@odata.etag":"W/\\"${String(row[1])}\\"",` +
        `"Ref_Key":"${String(row[0])}","DataVersion":${JSON.stringify(row[1])},"DeletionMark":${row[2] === 1},"Code":${JSON.stringify(row[3])},` +
        `"Description":${JSON.stringify(row[4])},"Article":${JSON.stringify(row[5])},"Unit":${JSON.stringify(row[6])}}`
      res.cork(() => {
        res
          .writeStatus('200 OK')
          .writeHeader('OData-Version', '4.0')
          .writeHeader('Content-Type', 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8')
          .writeHeader('ETag', `W/"${String(row[1])}"`)
          .end(body)
      })
    })
  })
  app.listen('127.0.0.1', port, () => undefined)
}
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() })
  if (message === 'exit') process.exit(0)
})
process.send?.('ready')
