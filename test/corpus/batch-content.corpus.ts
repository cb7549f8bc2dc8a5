// What the corpus requests say (INDEX.md, one assertion group per file): methods, URLs, Content-IDs,
// change-set grouping, bodies byte for byte, JSON ids, groups and dependencies.

import t from 'tap'
import type { BatchDocument } from '../../src/batch/intake/batch-document.js'
import { countTopLevelParts } from '../../src/batch/intake/multipart/count-top-level-parts.js'
import { createJsonIntake } from '../../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../../src/batch/intake/multipart/multipart-intake.js'
import { bodyText, ingest, outline } from '../batch/intake/intake-harness.js'
import { EXAMPLE_101, EXAMPLE_101_REFUSAL, multipartSample, withHttpVersions } from './batch-samples.js'
import { corpusFile } from './corpus-folder.js'

/**
 * The document of a corpus multipart request.
 * `addHttpVersions`: read it with ` HTTP/1.1` added to request lines without one.
 */
function multipartDocument(file: string, addHttpVersions = false): BatchDocument {
  const found = multipartSample(file)
  const sample = addHttpVersions ? withHttpVersions(found) : found
  const outcome = ingest(createMultipartIntake({ boundary: sample.boundary, limits: { maxOperations: 1000 } }), [sample.body])
  if (outcome.error !== undefined) throw outcome.error
  return outcome.document
}

function jsonDocument(file: string): BatchDocument {
  const body = corpusFile(file)
  const outcome = ingest(createJsonIntake(), [body])
  if (outcome.error !== undefined) throw outcome.error
  return outcome.document
}

t.test('batch-multipart-request-1.txt (the standard, Example 101)', async (t) => {
  const sample = multipartSample(EXAMPLE_101)
  const asItIs = ingest(createMultipartIntake({ boundary: sample.boundary }), [sample.body])
  t.match(
    asItIs.error,
    { code: 'BatchMalformed', status: 400, message: EXAMPLE_101_REFUSAL },
    'refused as it is: its first request line has no HTTP version (service.md §2.3)',
  )
  const document = multipartDocument(EXAMPLE_101, true)
  t.same(outline(document), [
    "GET /service/Customers('ALFKI')", // no HTTP version on this request line in the file: added
    ['POST /service/Customers #1', "PATCH /service/Customers('ALFKI') #2"],
    'GET /service/Products',
  ])
  const [get, post, patch, products] = document.operations
  t.equal(get.body, undefined, 'a GET part has no body')
  t.equal(products.body, undefined)
  t.equal(get.headers.get('host'), 'host')
  t.equal(bodyText(post), '<JSON representation of a new Customer>', 'the body stops at the CRLF before the delimiter')
  t.equal(post.headers.get('content-length'), '###', 'a placeholder Content-Length is kept, never used for framing')
  t.equal(patch.headers.get('if-match'), 'xxxxx')
  t.equal(patch.headers.get('prefer'), 'return=minimal')
  t.equal(bodyText(patch), '<JSON representation of changes to Customer ALFKI>')
  t.same(
    document.operations.map((operation) => operation.index),
    [0, 1, 2, 3],
  )
  t.equal(document.format, 'multipart')
})

t.test('batch-multipart-request-2.txt (the standard, Example 102)', async (t) => {
  const document = multipartDocument('batch-spec/batch-multipart-request-2.txt')
  t.same(outline(document), [['POST /service/Customers #1', 'POST $1/Orders #2']])
  t.equal(bodyText(document.operations[1]), '<JSON representation of a new Order>')
})

t.test('olingo-odata4 basicBatchPost.batch (LF line ends)', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata4/basicBatchPost.batch')
  t.same(outline(document), ['GET ESAllPrim(32767)', ['PUT ESAllPrim(32767) #changeRequest1'], 'GET ESAllPrim(32767)/PropertyString'])
  const put = document.operations[1]
  // The blank line after the JSON is part of the body; only the LF before the delimiter is not.
  t.equal(bodyText(put), '{"PropertyString":"MODIFIED"}\n')
  t.equal(put.headers.get('content-type'), 'application/json')
  t.equal(put.headers.get('content-transfer-encoding'), undefined, 'a MIME part header is not an embedded request header')
  t.equal(document.operations[0].headers.get('accept'), 'application/json')
})

t.test('olingo-odata4 basicBatchPostWithPreferHeader.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata4/basicBatchPostWithPreferHeader.batch')
  t.equal(document.operations.length, 3)
  t.equal(document.operations[2].headers.get('prefer'), 'return=minimal')
})

for (const file of ['batch-peers/olingo-odata4/batchLarge.batch', 'batch-peers/olingo-odata2/batchLarge.batch']) {
  t.test(`${file} (large: completes and counts every part)`, async (t) => {
    const sample = multipartSample(file)
    const document = multipartDocument(file)
    t.equal(document.items.length, 8, 'three GETs and five change sets')
    t.equal(countTopLevelParts(sample.body, sample.boundary), 8)
    t.equal(document.operations.length, 18)
    t.same(
      document.items.map((item) =>
        item.kind === 'operation' ? item.method : item.operations.map((operation) => operation.method).join('+'),
      ),
      ['GET', 'GET', 'GET', 'POST+POST+PUT', 'POST+POST+PUT', 'POST+POST+PUT', 'POST+POST+PUT', 'POST+POST+PUT'],
    )
  })
}

t.test('olingo-odata2 basicBatchWithContentIdReferencing.batch (Content-ID inside the embedded request)', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/basicBatchWithContentIdReferencing.batch')
  // Decision: an Olingo V2 client writes Content-ID among the embedded headers; it is honoured when
  // the MIME part has none, so `GET $2` can reference the first insert.
  t.same(outline(document), [['POST Rooms #2'], ['POST Rooms #3'], 'GET $2'])
  const body = bodyText(document.operations[0]) ?? ''
  t.ok(body.startsWith('<entry xmlns="http://www.w3.org/2005/Atom"'))
  t.ok(body.endsWith('</entry>\r\n'), 'the blank line before the delimiter leaves one CRLF in the body')
})

t.test('olingo-odata2 basicBatchWithContentIdReferencingFail.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/basicBatchWithContentIdReferencingFail.batch')
  t.same(outline(document), [['POST Rooms #2'], ['POST Rooms #3'], 'GET $2', 'GET $3'])
})

t.test('olingo-odata2 batchFailFirstCreateRequest.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/batchFailFirstCreateRequest.batch')
  t.same(outline(document), [['POST Employeess #employee', "PUT Employee('2')/EmployeeName #AAA"]])
  t.equal(document.operations[0].body, undefined)
  t.equal(bodyText(document.operations[1]), '{"EmployeeName":"Robert Fall"}\r\n')
  t.equal(document.operations[1].headers.get('content-length'), '100000', 'a wrong Content-Length does not frame the body')
})

t.test('olingo-odata2 batchWithContentId.batch (the MIME part Content-ID wins)', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/batchWithContentId.batch')
  t.same(outline(document), [
    ['POST Employees #newEmployee', 'PUT $newEmployee/EmployeeName #2', 'PUT $newEmployee/Age #3'],
    "GET Employees('7') #AAA",
  ])
  t.equal(document.operations[0].headers.get('content-id'), '1', 'the embedded header stays among the headers')
  t.equal(bodyText(document.operations[2]), '{"Age":40}\r\n')
})

t.test('olingo-odata2 batchWithContentIdPart2.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/batchWithContentIdPart2.batch')
  t.same(outline(document), [
    "GET Employees('2')/EmployeeName #AAA",
    ['POST Employees #employee', 'PUT $employee/EmployeeName #AAA'],
    "GET Employees('7')/EmployeeName",
  ])
})

t.test('olingo-odata2 batchWithWrongContentId.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/batchWithWrongContentId.batch')
  t.same(outline(document), [['POST Employees #employee', 'PUT $wrong/EmployeeName #AAA']])
})

t.test('olingo-odata2 changeset.batch', async (t) => {
  const document = multipartDocument('batch-peers/olingo-odata2/changeset.batch')
  t.same(outline(document), [
    "GET Employees('2')/EmployeeName",
    ["PUT Employees('2')/EmployeeName #putRequest"],
    "GET Employees('2')/EmployeeName #getRequest",
  ])
  t.equal(bodyText(document.operations[1]), '{"EmployeeName":"Frederic Fall MODIFIED"}\r\n')
})

t.test('olingo-odata2 single-GET files: the URL passes through intact', async (t) => {
  const expected: Record<string, string> = {
    'employeesWithFilter.batch': "GET Employees?$filter=substringof('Walter',EmployeeName)",
    'functionImport.batch': "GET ManagerPhoto?Id='1'",
    'simple.batch': 'GET $metadata',
  }
  for (const [name, line] of Object.entries(expected)) {
    const document = multipartDocument(`batch-peers/olingo-odata2/${name}`)
    t.same(outline(document), [line], name)
  }
})

t.test('Olingo response files as requests: body framing byte for byte', async (t) => {
  // INDEX.md: only the line break right before the delimiter belongs to the delimiter. The two files
  // are responses; with the status line made a request line, they test the intake's framing.
  const cases: Record<string, string> = {
    'batch-peers/olingo-odata2/BatchResponseWithAdditionalLineEnding.batch':
      'This is the body we need to parse. The trailing line ending is part of the body.\r\n',
    'batch-peers/olingo-odata2/BatchResponseWithLinesInBodyWin.batch':
      'This is the body we need to parse. The line spaces in the body \r\n\r\n\r\nare \r\n\r\npart of the body and must not be ignored or filtered.',
  }
  for (const [file, expectedBody] of Object.entries(cases)) {
    const sample = multipartSample(file)
    const asRequest = Buffer.from(
      sample.body.toString('latin1').replace('HTTP/1.1 500 Internal Server Error', 'POST Errors HTTP/1.1'),
      'latin1',
    )
    const outcome = ingest(createMultipartIntake({ boundary: sample.boundary }), [asRequest])
    t.equal(outcome.error, undefined, file)
    t.equal(bodyText(outcome.document!.operations[0]), expectedBody, file)
  }
})

t.test('the fragments of the standard: absolute URI, and absolute path with Host', async (t) => {
  const urls: string[] = []
  for (const file of [
    'batch-spec/batch-multipart-fragment-1-url-absolute.txt',
    'batch-spec/batch-multipart-fragment-2-url-absolute-path-host.txt',
  ]) {
    const fragment = corpusFile(file)
    const body = Buffer.concat([Buffer.from('--b\r\nContent-Type: application/http\r\n\r\n'), fragment, Buffer.from('\r\n\r\n--b--')])
    const outcome = ingest(createMultipartIntake({ boundary: 'b' }), [body])
    t.equal(outcome.error, undefined, file)
    const operation = outcome.document!.operations[0]
    urls.push(operation.url)
    if (file.includes('host')) t.equal(operation.headers.get('host'), 'myserver.mydomain.org:1234')
  }
  if (urls.length === 2) t.same(urls, ['https://host:1234/path/service/People(1)', '/path/service/People(1)'])
})

t.test('batch-json-request-1.json (the standard, Example 47)', async (t) => {
  const document = jsonDocument('batch-spec/batch-json-request-1.json')
  t.equal(document.format, 'json')
  t.same(outline(document), [
    "GET /service/Customers('ALFKI') #0",
    ["PATCH /service/Customers('ALFKI') #1", 'POST /service/Customers #2'],
    'GET /service/Products #3',
  ])
  const [first, patch, post, last] = document.operations
  t.same(first.dependsOn, [])
  t.same(patch.dependsOn, ['0'])
  t.same(last.dependsOn, ['group1'])
  t.equal(patch.atomicityGroup, 'group1')
  t.equal(post.atomicityGroup, 'group1')
  t.equal(document.items[1].kind === 'changeSet' ? document.items[1].atomicityGroup : undefined, 'group1')
  t.equal(patch.headers.get('prefer'), 'return=minimal', '"Prefer" is read as "prefer"')
  t.same(patch.body, { kind: 'json', value: '<JSON representation of changes to Customer ALFKI>' })
  t.equal(first.body, undefined)
})

t.test('batch-json-request-3.json (the standard, Example 49)', async (t) => {
  const document = jsonDocument('batch-spec/batch-json-request-3.json')
  t.same(outline(document), ['GET /service/Employees(0) #1', 'PATCH /service/Employees(0) #2'])
  const [get, patch] = document.operations
  t.equal(get.headers.get('accept'), 'application/json')
  t.equal(patch.headers.get('if-match'), '$1')
  t.same(patch.dependsOn, ['1'])
  t.same(patch.body, { kind: 'json', value: { Salary: 75000 } })
})
