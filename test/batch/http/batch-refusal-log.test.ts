// A $batch refused as a whole is logged as the batch request it was (decisions.md §8), whether the endpoint
// refused it before or while its body arrived or the batch stage after: one entry with its method, status,
// code and a batch id, as a single request's 400 is.
import t, { type Test } from 'tap'
import { startTestService, TOKEN_ROOT } from '../../support/test-service.js'

// The demo configuration logs errors.
const service = await startTestService('batch_refusal_log')
t.teardown(() => service.close())
const pool = service.database.pool

async function refusedAndLogged(
  t: Test,
  method: string,
  body: string | undefined,
  contentType: string,
  expected: { status: number; code: string },
) {
  const before = ((await pool.query('SELECT COALESCE(MAX(id), 0) AS id FROM request_log'))[0] as { id: number }[])[0]!.id
  const answer = await service.request(method, `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': contentType },
    body,
  })
  t.equal(answer.status, expected.status)
  t.equal(answer.json().error.code, expected.code)
  let entries: Record<string, unknown>[] = []
  for (let tries = 0; tries < 50 && entries.length === 0; tries++) {
    entries = (
      await pool.query('SELECT method, url, status, error_code, `Пакет` AS batch FROM request_log WHERE id > ?', [before])
    )[0] as Record<string, unknown>[]
    if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(entries.length, 1, 'one entry')
  t.match(entries[0], { method, url: `${TOKEN_ROOT}$batch`, status: expected.status, error_code: expected.code, batch: /^[0-9a-f-]{36}$/ })
}

t.test('truncated JSON', (t) =>
  refusedAndLogged(t, 'POST', '{"requests":[{"id":"1","method":"GET","url":"Catalog_Products"', 'application/json', {
    status: 400,
    code: 'BatchMalformed',
  }),
)

t.test('an empty request list', (t) =>
  refusedAndLogged(t, 'POST', '{"requests":[]}', 'application/json', { status: 400, code: 'BatchMalformed' }),
)

t.test('an unsupported media type', (t) => refusedAndLogged(t, 'POST', 'x', 'text/plain', { status: 415, code: 'UnsupportedMediaType' }))

t.test('GET $batch', (t) => refusedAndLogged(t, 'GET', undefined, 'application/json', { status: 405, code: 'MethodNotAllowed' }))
