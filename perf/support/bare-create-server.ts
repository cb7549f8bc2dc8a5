// The bare uWS handler the create benchmarks compare the service with, in a child process of its own:
// it does the work the service does for single-row catalog creates and nothing else — read the body,
// JSON.parse it (the JSON batch whole; each multipart operation's body), make the keys and versions,
// one multi-row INSERT in a transaction, and answer the same shape as the service (status, ETag,
// Location and the created object; a JSON or multipart batch answer, or a single 201). No login, no
// plan, no validation beyond what the INSERT needs.
// Usage: node build/perf/support/bare-create-server.js PORT   (over IPC: 'cpu' → process.cpuUsage(), 'exit')
import { randomBytes, randomUUID } from 'node:crypto'
import * as uws from 'uWebSockets.js'
import { createPool } from '../../src/store/pool.js'
import { benchAddress } from './bench-database.js'

const port = Number(process.argv[2])
const pool = createPool(benchAddress())
const ENTITY_TYPE = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8'
const INSERT = 'INSERT INTO `c_Products` (`Ref_Key`, `DataVersion`, `DeletionMark`, `Code`, `Description`, `Article`, `Unit`) VALUES ?'

interface Item {
  readonly id: string
  readonly group?: string
  readonly body: Record<string, unknown>
}

interface Created {
  readonly item: Item
  readonly location: string
  readonly etag: string
  readonly entity: string
}

/** Keys, versions and rows of the items, one transaction with one multi-row INSERT, then what each answers. */
async function create(items: readonly Item[], root: string): Promise<Created[]> {
  const versions = randomBytes(8 * items.length)
  const rows: unknown[][] = []
  const created = items.map((item, i) => {
    const key = randomUUID()
    const version = versions.toString('base64', 8 * i, 8 * i + 8)
    const b = item.body
    const values = [key, version, 0, b.Code ?? '', b.Description ?? '', b.Article ?? '', b.Unit ?? '']
    rows.push(values)
    const etag = `W/"${version}"`
    const entity =
      `{"@odata.context":${JSON.stringify(`${root}$metadata#Catalog_Products/$entity`)},"@odata.etag":${JSON.stringify(etag)},"Ref_Key":"${key}","DataVersion":"${version}","DeletionMark":false,` +
      `"Code":${JSON.stringify(values[3])},"Description":${JSON.stringify(values[4])},"Article":${JSON.stringify(values[5])},"Unit":${JSON.stringify(values[6])}}`
    return { item, location: `${root}Catalog_Products(${key})`, etag, entity }
  })
  const connection = await pool.getConnection()
  try {
    // The statements the service runs for a change set or a single create (src/store/transaction.ts); the
    // isolation level is the connection's, set once by the pool (src/store/pool.ts) as for the service.
    await connection.query('START TRANSACTION')
    await connection.query(INSERT, [rows])
    await connection.query('COMMIT')
  } catch (error) {
    await connection.query('ROLLBACK')
    throw error
  } finally {
    connection.release()
  }
  return created
}

function jsonAnswer(created: readonly Created[]): string {
  let text = '{"responses":['
  created.forEach((c, i) => {
    text +=
      `${i === 0 ? '' : ','}{"id":${JSON.stringify(c.item.id)},${c.item.group === undefined ? '' : `"atomicityGroup":${JSON.stringify(c.item.group)},`}"status":201,` +
      `"headers":{"Content-Type":"${ENTITY_TYPE}","ETag":${JSON.stringify(c.etag)},"Location":${JSON.stringify(c.location)}},"body":${c.entity}}`
  })
  return `${text}]}`
}

function multipartAnswer(created: readonly Created[], boundary: string): string {
  const changeSet = `changesetresponse_${randomUUID()}`
  let text = `--${boundary}\r\nContent-Type: multipart/mixed; boundary=${changeSet}\r\n\r\n`
  for (const c of created) {
    text +=
      `--${changeSet}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: ${c.item.id}\r\n\r\n` +
      `HTTP/1.1 201 Created\r\nContent-Type: ${ENTITY_TYPE}\r\nETag: ${c.etag}\r\nLocation: ${c.location}\r\nContent-Length: ${Buffer.byteLength(c.entity)}\r\n\r\n${c.entity}\r\n`
  }
  return `${text}--${changeSet}--\r\n--${boundary}--\r\n`
}

/** The operations of a multipart batch of one change set: Content-ID and the JSON body of each part. */
function multipartItems(text: string): Item[] {
  const items: Item[] = []
  for (const part of text.split('\r\n--')) {
    const request = part.indexOf('\r\n\r\nPOST ')
    if (request < 0) continue
    const id = /Content-ID: *([^\r\n]*)/i.exec(part.slice(0, request))?.[1] ?? String(items.length + 1)
    const bodyStart = part.indexOf('\r\n\r\n', request + 4)
    items.push({ id, body: JSON.parse(part.slice(bodyStart + 4)) as Record<string, unknown> })
  }
  return items
}

function readBody(res: uws.HttpResponse, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = []
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(chunk.slice(0)))
    if (last) done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
  })
}

const app = uws.App()
app.post('/*', (res, req) => {
  let aborted = false
  res.onAborted(() => {
    aborted = true
  })
  const url = req.getUrl()
  const contentType = req.getHeader('content-type')
  const root = `http://${req.getHeader('host')}/api/v4/`
  readBody(res, (body) => {
    let answer: Promise<{ status: string; type: string; text: string; location?: string; etag?: string }>
    if (url.endsWith('/$batch') && contentType.startsWith('application/json')) {
      const requests = (
        JSON.parse(body.toString('utf8')) as { requests: { id: string; atomicityGroup?: string; body: Record<string, unknown> }[] }
      ).requests
      answer = create(
        requests.map((r) => ({ id: r.id, group: r.atomicityGroup, body: r.body })),
        root,
      ).then((created) => ({ status: '200 OK', type: 'application/json;odata.metadata=minimal;charset=utf-8', text: jsonAnswer(created) }))
    } else if (url.endsWith('/$batch')) {
      const boundary = `batchresponse_${randomUUID()}`
      answer = create(multipartItems(body.toString('utf8')), root).then((created) => ({
        status: '200 OK',
        type: `multipart/mixed; boundary=${boundary}`,
        text: multipartAnswer(created, boundary),
      }))
    } else {
      answer = create([{ id: '1', body: JSON.parse(body.toString('utf8')) as Record<string, unknown> }], root).then(([c]) => ({
        status: '201 Created',
        type: ENTITY_TYPE,
        text: c!.entity,
        location: c!.location,
        etag: c!.etag,
      }))
    }
    answer.then(
      (a) => {
        if (aborted) return
        res.cork(() => {
          res.writeStatus(a.status).writeHeader('OData-Version', '4.0').writeHeader('Content-Type', a.type)
          if (a.location !== undefined) res.writeHeader('Location', a.location).writeHeader('ETag', a.etag!)
          res.end(a.text)
        })
      },
      (error: unknown) => {
        if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end(String(error)))
      },
    )
  })
})
app.listen('127.0.0.1', port, () => undefined)
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() })
  if (message === 'exit') process.exit(0)
})
process.send?.('ready')
