// The response format is parsed once per `Accept` or `$format` text and kept: the kept answer is the one a
// fresh parse gives, a refused text is refused every time (never kept), an `Accept` text and a `$format`
// text that read alike are not confused, and texts beyond the cache's bound are still answered right.
import t from 'tap'
import { ODataError } from '../../src/errors.js'
import { parseQueryOptions } from '../../src/odata/query-options.js'
import { contentType, jsonFormat } from '../../src/service/response-format.js'
import type { ServiceRequest } from '../../src/service/service-request.js'

function request(accept: string | undefined, format?: string): ServiceRequest {
  const headers = new Map<string, string>()
  if (accept !== undefined) headers.set('accept', accept)
  return {
    query: parseQueryOptions(format === undefined ? '' : `$format=${encodeURIComponent(format)}`),
    headers,
  } as unknown as ServiceRequest
}

function refusal(run: () => unknown): string | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    return error instanceof ODataError ? `${error.status} ${error.code}` : String(error)
  }
}

t.test('the same text gives the same format, and equal formats are one object', async (t) => {
  const first = jsonFormat(request('application/json;odata.metadata=full'))
  t.same(first, { metadata: 'full', ieee754Compatible: false })
  t.equal(jsonFormat(request('application/json;odata.metadata=full')), first, 'kept')
  t.equal(jsonFormat(request('application/json; odata.metadata=full')), first, 'another text, the same shared format')
  t.equal(jsonFormat(request(undefined, 'application/json;odata.metadata=full')), first, 'from $format too')
  t.ok(Object.isFrozen(first), 'shared formats cannot be changed by one request')
  t.equal(contentType(first), 'application/json;odata.metadata=full;odata.streaming=true;IEEE754Compatible=false;charset=utf-8')
  t.same(jsonFormat(request(undefined)), { metadata: 'minimal', ieee754Compatible: false }, 'no Accept: the default')
})

t.test('a refused text is refused each time', async (t) => {
  for (let i = 0; i < 3; i++) {
    t.equal(
      refusal(() => jsonFormat(request('application/xml'))),
      '406 NotAcceptable',
    )
    t.equal(
      refusal(() => jsonFormat(request('application/json;odata.metadata=verbose'))),
      '406 NotAcceptable',
    )
    t.equal(
      refusal(() => jsonFormat(request(undefined, 'xml'))),
      '406 NotAcceptable',
    )
  }
})

t.test('an Accept text is not read as a $format text nor the other way round', async (t) => {
  // `json` is a valid $format value but no media type an Accept range can name.
  t.same(jsonFormat(request(undefined, 'json;odata.metadata=none')), { metadata: 'none', ieee754Compatible: false })
  t.equal(
    refusal(() => jsonFormat(request('json;odata.metadata=none'))),
    '406 NotAcceptable',
  )
  t.same(jsonFormat(request(undefined, 'json;odata.metadata=none')), { metadata: 'none', ieee754Compatible: false })
})

t.test('beyond the bound of kept texts, every text is still parsed right', async (t) => {
  for (let i = 0; i < 600; i++) {
    const ieee = i % 2 === 0
    const format = jsonFormat(request(`application/json;IEEE754Compatible=${ieee};x-n=${i}`))
    if (format.ieee754Compatible !== ieee) t.fail(`text ${i}`)
  }
  t.equal(
    refusal(() => jsonFormat(request('text/html;x-n=700'))),
    '406 NotAcceptable',
  )
})
