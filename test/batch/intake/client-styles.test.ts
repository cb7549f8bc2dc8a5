// The intake on `$batch` bodies written the way the clients the service serves write them
// (client-bodies/README.md): what each says, operation by operation, and the same document however the
// body is cut (in two at every byte, at seeded random places, one byte at a time).

import t from 'tap'
import type { BatchDocument, BatchOperation } from '../../../src/batch/intake/batch-document.js'
import type { BatchIntake } from '../../../src/batch/intake/batch-intake.js'
import { createJsonIntake } from '../../../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import {
  type TapTest,
  clientJsonBodies,
  clientMultipartBodies,
  ingest,
  outcomeKey,
  randomSplit,
  splitAt,
  bodyText,
  outline,
} from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

const LIMITS = { maxOperations: 1000 }

/** Bodies as UTF-8 text: the clients write UTF-8. */
const utf8Body = (operation: BatchOperation) => bodyText(operation, 'utf8')

const multipart = new Map(clientMultipartBodies().map((sample) => [sample.name, sample]))
const json = new Map(clientJsonBodies().map((sample) => [sample.name, sample]))

function multipartDocument(name: string): BatchDocument {
  const sample = multipart.get(name)
  if (sample === undefined) throw new Error(`no client body ${name}`)
  const outcome = ingest(createMultipartIntake({ boundary: sample.boundary, limits: LIMITS }), [sample.body])
  if (outcome.error !== undefined) throw outcome.error
  return outcome.document
}

function jsonDocument(name: string): BatchDocument {
  const sample = json.get(name)
  if (sample === undefined) throw new Error(`no client body ${name}`)
  const outcome = ingest(createJsonIntake({ limits: LIMITS }), [sample.body])
  if (outcome.error !== undefined) throw outcome.error
  return outcome.document
}

t.test('SAPUI5 V4: headers without a blank after the colon, Content-ID 0.0 and its reference', async (t) => {
  const document = multipartDocument('sapui5-v4.batch')
  t.same(outline(document), [
    'GET Catalog_Products?$select=Ref_Key,Code,Description&$top=100',
    ['POST Catalog_Warehouses #0.0', 'PATCH $0.0 #1.0'],
  ])
  const [get, post, patch] = document.operations
  t.equal(get.headers.get('accept'), 'application/json;odata.metadata=minimal;IEEE754Compatible=true')
  t.equal(get.headers.get('x-csrf-token'), 'Fetch')
  t.equal(post.headers.get('content-type'), 'application/json;charset=UTF-8;IEEE754Compatible=true')
  t.equal(utf8Body(post), '{"Code":"UI5-1","Description":"Store from the UI"}')
  t.equal(patch.headers.get('prefer'), 'return=minimal')
})

t.test('.NET OData client: GUID boundaries, absolute URLs, OData-Version on every request', async (t) => {
  const document = multipartDocument('dotnet-odata-client.batch')
  t.same(outline(document), [
    ['POST http://localhost:8080/api/v4/Catalog_Counterparties #1', 'POST http://localhost:8080/api/v4/Catalog_Counterparties #2'],
    'GET http://localhost:8080/api/v4/Catalog_Counterparties?$filter=startswith(Code,%27NET-%27)&$count=true',
  ])
  for (const operation of document.operations) t.equal(operation.headers.get('odata-version'), '4.0', `${operation.method} ${operation.id}`)
  t.equal(
    utf8Body(document.operations[0]),
    '{"@odata.type":"#Demo.Catalog_Counterparties","Code":"NET-1","Description":"Partner from .NET"}',
  )
  t.equal(document.operations[2].body, undefined, 'a GET has no body')
})

t.test('Olingo V4 client: LF line ends, Content-Id, a PUT in its change set', async (t) => {
  const document = multipartDocument('olingo-v4-client.batch')
  t.same(outline(document), [
    ["PUT Catalog_Products(guid'00000000-0000-4000-8000-000000000001') #upd-1"],
    'GET Catalog_Products?$orderby=Code%20desc&$skip=10&$top=5',
  ])
  t.equal(utf8Body(document.operations[0]), '{"Code":"P-1","Description":"Whole entity"}', 'the LF before the delimiter is not body')
  t.equal(document.operations[0].headers.get('content-transfer-encoding'), undefined, 'a MIME part header is not an embedded one')
})

t.test('an ETL script: preamble, epilogue, lower-case headers, a quoted boundary with blanks', async (t) => {
  const document = multipartDocument('etl-script.batch')
  t.same(outline(document), [
    ['POST Catalog_Products #a', "DELETE Catalog_Products(guid'00000000-0000-4000-8000-000000000002') #b"],
    'GET InformationRegister_Prices?$filter=Period%20ge%202026-01-01T00:00:00Z',
  ])
  t.equal(utf8Body(document.operations[0]), '{"Code":"ETL-1","Description":"Line one\\n\\nLine three"}')
  t.equal(document.operations[1].body, undefined, 'a DELETE without a body')
})

t.test('an OData V2-era client: the Content-ID among the embedded headers', async (t) => {
  const document = multipartDocument('odata-v2-client.batch')
  t.same(outline(document), [['POST Document_GoodsReceipt #doc', 'PATCH $doc #doc-patch']])
})

t.test('a gateway: absolute paths with Host', async (t) => {
  const document = multipartDocument('gateway-absolute-path.batch')
  t.same(outline(document), ['GET /api/v4/Catalog_Warehouses?$top=2', 'GET /api/v4/AccumulationRegister_Stock_Balance()?$top=3'])
  t.equal(document.operations[0].headers.get('host'), 'erp.example.org:8443')
})

t.test('a bulk loader: twelve creations with Cyrillic names in one change set, UTF-8 byte for byte', async (t) => {
  const document = multipartDocument('bulk-loader-cyrillic.batch')
  t.equal(document.items.length, 1)
  t.equal(document.operations.length, 12)
  t.same(
    document.operations.map((operation) => operation.id),
    Array.from({ length: 12 }, (_, index) => String(index + 1)),
  )
  t.equal(document.operations[6].url, 'Catalog_Организации')
  t.equal(utf8Body(document.operations[6]), '{"Code":"ОРГ-07","Description":"Организация №7"}')
})

t.test('JSON: an atomicity group with dependencies, lower-case methods, an ETag reference', async (t) => {
  const document = jsonDocument('json-dependent-groups.json')
  t.same(outline(document), [
    'GET Catalog_Products?$top=1 #0',
    ['POST Document_GoodsReceipt #1', 'PATCH $1 #2'],
    'GET $1?$select=Number #3',
  ])
  const [, post, patch, last] = document.operations
  t.same([...post.dependsOn], ['0'])
  t.same([...last.dependsOn], ['receipt'])
  t.equal(patch.headers.get('if-match'), '$1')
  t.equal(patch.atomicityGroup, 'receipt')
})

t.test('JSON: a text body with escapes', async (t) => {
  const document = jsonDocument('json-text-body.json')
  t.equal(document.operations.length, 1)
  t.equal(
    document.operations[0].body?.kind === 'json' ? document.operations[0].body.value : undefined,
    'Plain text, with "quotes", \\ and ü',
  )
})

function checkChunkings(t: TapTest, name: string, body: Buffer, createIntake: () => BatchIntake): void {
  const whole = ingest(createIntake(), [body])
  t.equal(whole.error, undefined, `${name}: parses whole`)
  const expected = outcomeKey(whole)
  const differing: string[] = []
  for (let cut = 0; cut <= body.length; cut++)
    if (outcomeKey(ingest(createIntake(), splitAt(body, [cut]))) !== expected) differing.push(`cut at ${cut}`)
  const random = seededRandom(0x5eed + body.length)
  for (let attempt = 0; attempt < 40; attempt++) {
    const chunks = randomSplit(body, random, 2 + Math.floor(random() * Math.min(64, body.length)))
    if (outcomeKey(ingest(createIntake(), chunks)) !== expected) differing.push(`random cuts, attempt ${attempt}`)
  }
  const bytes = Array.from(body, (_, index) => body.subarray(index, index + 1))
  if (outcomeKey(ingest(createIntake(), bytes)) !== expected) differing.push('one byte at a time')
  t.same(differing.slice(0, 5), [], `${name}: the same document however cut`)
}

t.test('every client body: the same document however it is cut', async (t) => {
  t.equal(multipart.size, 7, 'seven multipart bodies')
  t.equal(json.size, 2, 'two JSON bodies')
  for (const sample of multipart.values())
    checkChunkings(t, sample.name, sample.body, () => createMultipartIntake({ boundary: sample.boundary, limits: LIMITS }))
  for (const sample of json.values()) checkChunkings(t, sample.name, sample.body, () => createJsonIntake({ limits: LIMITS }))
})
