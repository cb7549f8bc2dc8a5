// One door (src/service/handle-request.ts): a request answers the same whether it comes alone or as an
// operation of a `$batch`, inside a change set (a write) or on its own (a read), in a JSON and in a multipart
// batch. A table of the dispatcher's and the handlers' refusals (405 with its `Allow`, 404 of an unknown set
// or entity, 403 of a profile, 415, 412, 400); each is sent the three ways and its status, error (code,
// message, target) and answer headers are compared with the single request's. None of them changes data,
// so every way finds the same state.
import t from 'tap'
import { buildJsonBatch, buildMultipartBatch, type OperationSpec } from '../../../src/tools/shared/batch-body.js'
import { startTestService, TOKEN_ROOT, type TestResponse } from '../../support/test-service.js'

const service = await startTestService('same_answer', { data: 'demo' })
t.teardown(() => service.close())
const [rows] = await service.database.pool.query('SELECT Ref_Key, Code FROM c_Warehouses ORDER BY Code LIMIT 1')
const warehouse = (rows as { Ref_Key: string; Code: string }[])[0]!
const UNKNOWN_KEY = '00000000-0000-4000-8000-00000000abcd'
const DEMO = 'Bearer demo-token'
const READER = 'Bearer reader-token'
const json = { 'Content-Type': 'application/json' }

/** The headers an operation's answer carries and a batch repeats; the rest belong to the HTTP exchange. */
const ANSWER_HEADERS = ['allow', 'content-type', 'etag', 'location', 'odata-entityid', 'preference-applied', 'retry-after']

interface Row {
  readonly name: string
  readonly status: number
  readonly login?: string
  readonly method: string
  readonly url: string
  readonly headers?: Record<string, string>
  readonly body?: OperationSpec['body']
  /** The answer must carry these headers (checked on the single request; the batched ones are compared with it). */
  readonly expectHeaders?: Record<string, string>
}

const table: Row[] = [
  {
    name: 'POST to a record-type set: 405, Allow GET, HEAD',
    status: 405,
    method: 'POST',
    url: 'AccumulationRegister_Stock_RecordType',
    headers: json,
    body: {},
    expectHeaders: { allow: 'GET, HEAD' },
  },
  {
    name: 'DELETE of a collection: 405, Allow GET, POST, HEAD',
    status: 405,
    method: 'DELETE',
    url: 'Catalog_Warehouses',
    expectHeaders: { allow: 'GET, POST, HEAD' },
  },
  {
    name: 'PATCH of $count: 405',
    status: 405,
    method: 'PATCH',
    url: 'Catalog_Warehouses/$count',
    headers: json,
    body: {},
    expectHeaders: { allow: 'GET, HEAD' },
  },
  {
    name: 'POST to $metadata: 405',
    status: 405,
    method: 'POST',
    url: '$metadata',
    headers: json,
    body: {},
    expectHeaders: { allow: 'GET, HEAD' },
  },
  {
    name: 'a profile that may not write, to a set that takes no POST: 405 comes first',
    status: 405,
    login: READER,
    method: 'POST',
    url: 'AccumulationRegister_Stock_RecordType',
    headers: json,
    body: {},
    expectHeaders: { allow: 'GET, HEAD' },
  },
  {
    name: 'a profile that may not write: 403',
    status: 403,
    login: READER,
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: json,
    body: { Code: 'NO', Description: 'refused' },
  },
  {
    name: 'a profile that may not write, PATCH of an unknown entity: 403 before 404',
    status: 403,
    login: READER,
    method: 'PATCH',
    url: `Catalog_Warehouses(${UNKNOWN_KEY})`,
    headers: json,
    body: { Description: 'refused' },
  },
  { name: 'POST to an unknown set: 404', status: 404, method: 'POST', url: 'Catalog_Nowhere', headers: json, body: {} },
  { name: 'GET of an unknown set: 404', status: 404, method: 'GET', url: 'Catalog_Nowhere' },
  {
    name: 'PATCH of an unknown entity: 404',
    status: 404,
    method: 'PATCH',
    url: `Catalog_Warehouses(${UNKNOWN_KEY})`,
    headers: json,
    body: { Description: 'nobody' },
  },
  { name: 'GET of an unknown entity: 404', status: 404, method: 'GET', url: `Catalog_Warehouses(${UNKNOWN_KEY})` },
  {
    name: 'a body that is not JSON: 415',
    status: 415,
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: { 'Content-Type': 'text/plain' },
    body: 'Code=X',
  },
  {
    name: 'If-Match that does not hold: 412',
    status: 412,
    method: 'PATCH',
    url: `Catalog_Warehouses(${warehouse.Ref_Key})`,
    headers: { ...json, 'If-Match': 'W/"not-the-version"' },
    body: { Description: 'never written' },
  },
  {
    name: 'If-None-Match: * on an existing entity: 412',
    status: 412,
    method: 'PATCH',
    url: `Catalog_Warehouses(${warehouse.Ref_Key})`,
    headers: { ...json, 'If-None-Match': '*' },
    body: { Description: 'never written' },
  },
  {
    name: 'a create whose key exists, with If-None-Match: *: 412',
    status: 412,
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: { ...json, 'If-None-Match': '*' },
    body: { Ref_Key: warehouse.Ref_Key, Code: 'DUP', Description: 'never written' },
  },
  {
    name: 'a property the set does not have: 400',
    status: 400,
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: json,
    body: { Code: 'X', NoSuchProperty: 1 },
  },
  {
    name: 'an action on an unknown document: 404',
    status: 404,
    method: 'POST',
    url: `Document_GoodsReceipt(${UNKNOWN_KEY})/Post`,
  },
]

/** What is compared of an answer. */
interface Answer {
  readonly status: number
  readonly error: unknown
  readonly headers: Record<string, string>
}

function answerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (ANSWER_HEADERS.includes(lower) && value !== undefined) kept[lower] = String(value)
  }
  return kept
}

function errorOf(text: string): unknown {
  if (text === '') return undefined
  return (JSON.parse(text) as { error?: unknown }).error
}

const isRead = (row: Row) => row.method === 'GET' || row.method === 'HEAD'

async function alone(row: Row): Promise<Answer> {
  const body = row.body === undefined ? undefined : typeof row.body === 'string' ? row.body : JSON.stringify(row.body)
  const response = await service.request(row.method, TOKEN_ROOT + row.url, {
    headers: { Authorization: row.login ?? DEMO, ...row.headers },
    body,
  })
  return { status: response.status, error: errorOf(response.text), headers: answerHeaders(response.headers) }
}

/** The row as the one operation of a batch: in a change set when it writes (a read may not stand in one). */
function operation(row: Row): OperationSpec {
  return {
    id: '1',
    method: row.method,
    url: row.url,
    headers: row.headers,
    body: row.body,
    atomicityGroup: isRead(row) ? undefined : 'g',
  }
}

async function sendBatch(row: Row, built: { body: Buffer; contentType: string }): Promise<TestResponse> {
  const response = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: row.login ?? DEMO, 'Content-Type': built.contentType },
    body: built.body,
  })
  if (response.status !== 200) throw new Error(`the batch itself answered ${response.status}: ${response.text}`)
  return response
}

async function inJsonBatch(row: Row): Promise<Answer> {
  const response = await sendBatch(row, buildJsonBatch([operation(row)]))
  const [item] = response.json().responses as { status: number; headers?: Record<string, string>; body?: unknown }[]
  const body = item!.body as { error?: unknown } | undefined
  return { status: item!.status, error: body?.error, headers: answerHeaders(item!.headers ?? {}) }
}

/** The embedded HTTP response of a multipart answer's only operation, in a change set or not. */
async function inMultipartBatch(row: Row): Promise<Answer> {
  const response = await sendBatch(row, buildMultipartBatch([operation(row)]))
  const start = response.text.indexOf('HTTP/1.1 ')
  const headEnd = response.text.indexOf('\r\n\r\n', start)
  const [statusLine, ...headerLines] = response.text.slice(start, headEnd).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon)] = line.slice(colon + 1).trim()
  }
  const rest = response.text.slice(headEnd + 4)
  const body = rest.slice(0, rest.indexOf('\r\n--'))
  return { status: Number(statusLine!.split(' ')[1]), error: errorOf(body), headers: answerHeaders(headers) }
}

for (const row of table) {
  t.test(row.name, async (t) => {
    const single = await alone(row)
    t.equal(single.status, row.status, 'alone: the status the row expects')
    for (const [name, value] of Object.entries(row.expectHeaders ?? {})) t.equal(single.headers[name], value, `alone: ${name}`)
    t.ok((single.error as { code?: string } | undefined)?.code, 'alone: an error with its code')
    const where = isRead(row) ? 'an operation of its own' : 'a change set'
    t.same(await inJsonBatch(row), single, `in ${where} of a JSON batch: the same status, error and headers`)
    t.same(await inMultipartBatch(row), single, `in ${where} of a multipart batch: the same status, error and headers`)
  })
}

// Consecutive creates of one set in a change set are written together (src/service/change-set.ts,
// `runTogether`) after the same admission: refused, they run one by one, and the first answers as alone.
t.test('a run of creates the profile may not write: the first answers as it does alone', async (t) => {
  const create = (n: number): Row => ({
    name: `create ${n}`,
    status: 403,
    login: READER,
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: json,
    body: { Code: `RUN-${n}`, Description: 'refused' },
  })
  const single = await alone(create(1))
  t.equal(single.status, 403)
  const operations = [1, 2, 3].map((n) => ({ ...operation(create(n)), id: String(n) }))
  const jsonAnswer = await sendBatch(create(1), buildJsonBatch(operations))
  const [first, ...rest] = jsonAnswer.json().responses as { status: number; headers?: Record<string, string>; body?: { error?: unknown } }[]
  t.same(
    { status: first!.status, error: first!.body?.error, headers: answerHeaders(first!.headers ?? {}) },
    single,
    'JSON: the first as alone',
  )
  t.same(
    rest.map((item) => item.status),
    [424, 424],
    'JSON: the others not run',
  )
  const multipartAnswer = await sendBatch(create(1), buildMultipartBatch(operations))
  t.match(multipartAnswer.text, /HTTP\/1\.1 403 /, 'multipart: the failed change set answered by its failing operation')
  t.equal(multipartAnswer.text.match(/HTTP\/1\.1 /g)?.length, 1, 'multipart: one answer for the set')
})
