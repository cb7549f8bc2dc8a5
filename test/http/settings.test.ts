// decisions.md §8: the settings come from the configuration, are overridden by the environment, and are
// read and changed at run time by an administrator, persisted in MySQL. Over HTTP (`<root>/$settings`),
// with their effect on the requests that follow, what MySQL holds afterwards, and what another process
// (another LiveSettings on the same database) sees.
import t from 'tap'
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { ConfigurationError } from '../../src/model/configuration.js'
import { LiveSettings, settingsFromEnvironment } from '../../src/service/live-settings.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { DEMO_BASIC, READER_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_settings')
t.teardown(() => service.close())

const SETTINGS = `${REFERENCE_ROOT}$settings`
const asDemo = { authorization: DEMO_BASIC }

/** The administrator's values as MySQL holds them: one row per setting, its value as JSON. */
async function stored(): Promise<Record<string, unknown>> {
  const [rows] = (await service.database.pool.query('SELECT `name`, `value` FROM `_settings` ORDER BY `name`')) as unknown as [
    { name: string; value: string }[],
  ]
  return Object.fromEntries(rows.map((row) => [row.name, JSON.parse(row.value)]))
}

function patch(body: unknown, headers: Record<string, string> = asDemo) {
  return service.request('PATCH', SETTINGS, {
    headers: { ...headers, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** A multipart batch of `count` reads, as the demo subject sends it on the token root. */
function postBatch(count: number) {
  const batch = buildMultipartBatch(
    Array.from({ length: count }, () => ({ method: 'GET', url: 'Catalog_Products?$top=1', headers: { Accept: 'application/json' } })),
  )
  return service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { authorization: 'Bearer demo-token', 'content-type': `multipart/mixed; boundary=${batch.boundary}` },
    body: batch.body,
  })
}

t.test('an administrator reads the settings and where each comes from', async (t) => {
  const response = await service.request('GET', SETTINGS, { headers: asDemo })
  t.equal(response.status, 200)
  t.equal(response.headers['cache-control'], 'no-store')
  t.same(response.json(), {
    settings: { maxBatchSizeMB: 10, maxBatchOperations: 100, logLevel: 'all', pageSize: 0, changeRetentionHours: 168 },
    sources: {
      maxBatchSizeMB: 'configuration',
      maxBatchOperations: 'configuration',
      logLevel: 'configuration',
      pageSize: 'configuration',
      changeRetentionHours: 'default',
    },
  })
  const byToken = await service.request('GET', `${TOKEN_ROOT}$settings`, { headers: { authorization: 'Bearer demo-token' } })
  t.equal(byToken.status, 200, 'on the token root too')
})

t.test('only a profile that administers may read or change them', async (t) => {
  const read = await service.request('GET', SETTINGS, { headers: { authorization: READER_BASIC } })
  t.equal(read.status, 403)
  t.equal(read.json().error.code, 'Forbidden')
  const change = await patch({ maxBatchOperations: 1 }, { authorization: READER_BASIC })
  t.equal(change.status, 403)
  t.same(await stored(), {}, 'nothing was written')
  const anonymous = await service.request('GET', SETTINGS)
  t.equal(anonymous.status, 401)
})

t.test('a change is persisted, takes effect at once, and null gives the next source back', async (t) => {
  t.equal((await postBatch(4)).status, 200, 'four operations pass the configured limit')
  const changed = await patch({ maxBatchOperations: 3 })
  t.equal(changed.status, 200)
  t.equal(changed.json().settings.maxBatchOperations, 3)
  t.equal(changed.json().sources.maxBatchOperations, 'administrator')
  t.same(await stored(), { maxBatchOperations: 3 }, 'MySQL holds the administrator value')

  const refused = await postBatch(4)
  t.equal(refused.status, 400)
  t.equal(refused.json().error.code, 'TooManyOperations')
  t.match(refused.json().error.message, /4 operations; at most 3/)
  t.equal((await postBatch(3)).status, 200)

  const reset = await patch({ maxBatchOperations: null })
  t.equal(reset.status, 200)
  t.equal(reset.json().settings.maxBatchOperations, 100)
  t.equal(reset.json().sources.maxBatchOperations, 'configuration')
  t.same(await stored(), {}, 'the value is gone from MySQL')
  t.equal((await postBatch(4)).status, 200)
})

t.test('the request log level changes what is logged', async (t) => {
  const pool = service.database.pool
  await pool.query('DELETE FROM request_log')
  t.equal((await patch({ logLevel: 'off' })).status, 200)
  await service.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, { headers: asDemo })
  t.equal((await patch({ logLevel: null })).status, 200)
  await service.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, { headers: asDemo })
  // The log is written behind the answers, in order: once the second request's entry is there, the first's
  // would be too, had it been logged. Bounded, not timed: a loaded machine only makes it wait longer.
  const count = async () =>
    Number(
      (
        (await pool.query("SELECT COUNT(*) AS n FROM request_log WHERE url LIKE '%Catalog_Products%'")) as unknown as [{ n: number }[]]
      )[0][0]!.n,
    )
  let logged = await count()
  for (let i = 0; i < 200 && logged === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    logged = await count()
  }
  t.equal(logged, 1, 'the request at level off not logged; the one at the configured level, all, logged')
})

t.test('a bad change is refused whole, naming each bad member, and changes nothing', async (t) => {
  t.equal((await patch({ pageSize: 50 })).status, 200)
  const before = await stored()
  const cases: [string, unknown, RegExp][] = [
    ['out of range', { maxBatchOperations: 0, pageSize: 10 }, /maxBatchOperations/],
    ['wrong type', { maxBatchSizeMB: 'ten' }, /maxBatchSizeMB/],
    ['unknown level', { logLevel: 'verbose' }, /logLevel must be one of/],
    ['unknown name', { maxBatchBytes: 5 }, /maxBatchBytes is not a setting/],
  ]
  for (const [name, body, message] of cases) {
    const response = await patch(body)
    t.equal(response.status, 400, name)
    t.equal(response.json().error.code, 'InvalidSetting', name)
    t.match(response.json().error.message, message, name)
    t.ok(response.json().error.details.length >= 1, `${name}: details name the members`)
  }
  for (const [name, body] of [
    ['not JSON', '{"pageSize": '],
    ['an array', [1]],
    ['a string', 'pageSize'],
  ] as const) {
    const response = await patch(typeof body === 'string' && name === 'a string' ? JSON.stringify(body) : body)
    t.equal(response.status, 400, name)
    t.equal(response.json().error.code, 'InvalidBody', name)
  }
  t.same(await stored(), before, 'MySQL holds what it held')
  const view = (await service.request('GET', SETTINGS, { headers: asDemo })).json()
  t.equal(view.settings.pageSize, 50)
  t.equal(view.settings.maxBatchOperations, 100)
  t.equal((await patch({ pageSize: null })).status, 200)
})

t.test('other methods are not allowed', async (t) => {
  for (const method of ['PUT', 'POST', 'DELETE']) {
    const response = await service.request(method, SETTINGS, { headers: { ...asDemo, 'content-type': 'application/json' }, body: '{}' })
    t.equal(response.status, 405, method)
    t.equal(response.headers.allow, 'GET, PATCH', method)
  }
})

t.test('another process sees a change when it reads the settings again, and a restart keeps it', async (t) => {
  const other = createServiceContext(service.model, service.database.pool)
  await other.settings.load(service.database.pool)
  t.equal(other.settings.current.maxBatchOperations, 100)
  t.equal((await patch({ maxBatchOperations: 7 })).status, 200)
  await other.settings.load(service.database.pool)
  t.equal(other.settings.current.maxBatchOperations, 7, 'the other process sees the administrator value')
  t.equal(other.settings.view().sources.maxBatchOperations, 'administrator')
  // Two administrators in two processes change different settings: both changes stay.
  await other.settings.change(service.database.pool, { pageSize: 25 })
  t.same(await stored(), { maxBatchOperations: 7, pageSize: 25 })
  t.equal((await patch({ maxBatchOperations: null, pageSize: null })).status, 200)
  t.same(await stored(), {})
})

t.test('the environment overrides the configuration; an administrator overrides both', async (t) => {
  const model = service.model
  const environment = settingsFromEnvironment({ MAX_BATCH_OPERATIONS: '40', REQUEST_LOG_LEVEL: 'errors', PAGE_SIZE: ' ', UNRELATED: 'x' })
  t.same(environment, { maxBatchOperations: 40, logLevel: 'errors' }, 'blank variables are unset')
  const settings = new LiveSettings(model.settings, model.configuration.settings ?? {}, environment)
  t.same(new LiveSettings(model.settings, {}).view().sources.pageSize, 'default', 'a setting the configuration leaves out is the default')
  t.same(settings.view(), {
    settings: { maxBatchSizeMB: 10, maxBatchOperations: 40, logLevel: 'errors', pageSize: 0, changeRetentionHours: 168 },
    sources: {
      maxBatchSizeMB: 'configuration',
      maxBatchOperations: 'environment',
      logLevel: 'environment',
      pageSize: 'configuration',
      changeRetentionHours: 'default',
    },
  })
  await settings.change(service.database.pool, { maxBatchOperations: 9 })
  t.equal(settings.current.maxBatchOperations, 9)
  await settings.change(service.database.pool, { maxBatchOperations: null })
  t.equal(settings.current.maxBatchOperations, 40, 'without the administrator value, the environment shows again')

  t.throws(() => settingsFromEnvironment({ MAX_BATCH_OPERATIONS: 'many', REQUEST_LOG_LEVEL: 'loud' }), ConfigurationError)
  // A count is written in digits only, as every counting variable is (environment.ts).
  for (const text of ['2.0', '1e3', '0x10']) {
    t.throws(() => settingsFromEnvironment({ MAX_BATCH_OPERATIONS: text }), ConfigurationError, `MAX_BATCH_OPERATIONS=${text}`)
    t.throws(() => settingsFromEnvironment({ PAGE_SIZE: text }), ConfigurationError, `PAGE_SIZE=${text}`)
  }
  t.same(settingsFromEnvironment({ MAX_BATCH_SIZE_MB: '2.5' }), { maxBatchSizeMB: 2.5 }, 'a size takes a fraction')
  try {
    settingsFromEnvironment({ MAX_BATCH_OPERATIONS: '0' })
  } catch (error) {
    t.match((error as Error).message, /MAX_BATCH_OPERATIONS/, 'the message names the variable')
  }
})

t.test('stored values that are no longer valid settings are ignored, the valid ones kept', async (t) => {
  const pool = service.database.pool
  await pool.query(
    "INSERT INTO `_settings` (`name`, `value`) VALUES ('maxBatchOperations', '-1'), ('pageSize', '{not json'), ('retired', '1'), ('logLevel', '\"errors\"')",
  )
  const settings = new LiveSettings(service.model.settings, service.model.configuration.settings ?? {})
  await settings.load(pool)
  t.equal(settings.current.maxBatchOperations, 100)
  t.equal(settings.current.pageSize, 0)
  t.equal(settings.current.logLevel, 'errors')
  await pool.query('DELETE FROM `_settings`')
})
