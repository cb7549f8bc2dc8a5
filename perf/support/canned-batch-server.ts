// A bare uWS server that answers every POST with one canned $batch answer (the JSON answer to a change
// set of creates and their Posts, as the service gives it), after reading the whole request body: what
// a driver reaches against it is the driver's own ceiling. Usage: node build/perf/support/canned-batch-server.js PORT OPERATIONS
import * as uws from 'uWebSockets.js'

const port = Number(process.argv[2])
const creates = Number(process.argv[3] ?? 100) / 2
const responses = []
for (let i = 1; i <= creates; i++) {
  const key = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
  responses.push({
    id: `c${i}`,
    atomicityGroup: 'g',
    status: 201,
    headers: {
      'content-type': 'application/json;odata.metadata=minimal',
      location: `http://127.0.0.1:${port}/api/v4/Document_GoodsReceipt(${key})`,
    },
    body: {
      Ref_Key: key,
      DataVersion: 'AAAAAQAAAAA=',
      Number: `D${i}`,
      Posted: false,
      Goods: Array.from({ length: 10 }, (_, j) => ({ LineNumber: j + 1, Quantity: 5, Price: 10, Amount: 50 })),
    },
  })
}
for (let i = 1; i <= creates; i++) responses.push({ id: `p${i}`, atomicityGroup: 'g', status: 204, headers: { etag: 'W/"AAAAAgAAAAA="' } })
const canned = Buffer.from(JSON.stringify({ responses }))

uws
  .App()
  .any('/*', (res) => {
    res.onAborted(() => {})
    res.onData((_chunk, last) => {
      if (!last) return
      res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(canned))
    })
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) throw new Error(`cannot listen on ${port}`)
    process.send?.('ready')
  })
