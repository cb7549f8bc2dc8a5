// The administration page in a real browser (puppeteer-core driving Debian's Chromium): an administrator
// sees the settings with their sources, gets the API's own validation message for a bad value, changes
// settings through the page and reads them back through `$settings`; filters the request log by status and
// by batch id; sees the rate counters and live throughput. A screenshot is kept in test-artifacts/.
// Where no Chromium can be had (not installed, not root to install it), this one test is skipped.
/// <reference lib="dom" />
import { mkdirSync, statSync } from 'node:fs'
import t from 'tap'
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { findChromium } from '../support/find-chromium.js'
import { DEMO_BASIC, READER_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_admin_page', { data: 'demo' })
t.teardown(() => service.close())
const ADMIN = `${REFERENCE_ROOT}$admin`

t.test('only an administrator gets the page and its reads', async (t) => {
  t.equal((await service.request('GET', ADMIN, { headers: { authorization: READER_BASIC } })).status, 403)
  t.equal((await service.request('GET', `${ADMIN}/log`, { headers: { authorization: READER_BASIC } })).status, 403)
  t.equal((await service.request('GET', ADMIN)).status, 401)
  const page = await service.request('GET', ADMIN, { headers: { authorization: DEMO_BASIC } })
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.headers['content-security-policy'], /default-src 'self'/)
  t.equal((await service.request('GET', `${ADMIN}/log?status=4x4`, { headers: { authorization: DEMO_BASIC } })).status, 400)
  t.equal((await service.request('POST', `${ADMIN}/log`, { headers: { authorization: DEMO_BASIC } })).status, 405)
  t.equal((await service.request('GET', `${ADMIN}/nothing`, { headers: { authorization: DEMO_BASIC } })).status, 404)
})

t.test('the request log is paged, newest first, and filtered by status class and subject', async (t) => {
  const rows = Array.from({ length: 60 }, (_, i) => [
    new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    'pager',
    'default',
    'GET',
    `/p/${i}`,
    i % 2 === 0 ? 200 : 404,
    1,
  ])
  await service.database.pool.query('INSERT INTO request_log (at, subject, profile, method, url, status, duration_ms) VALUES ?', [rows])
  const read = async (query: string) =>
    (await service.request('GET', `${ADMIN}/log?${query}`, { headers: { authorization: DEMO_BASIC } })).json()
  const first = await read('subject=pager')
  t.equal(first.total, 60)
  t.equal(first.entries.length, 50)
  t.equal(first.entries[0].url, '/p/59', 'newest first')
  const second = await read('subject=pager&page=2')
  t.same(
    second.entries.map((entry: { url: string }) => entry.url),
    Array.from({ length: 10 }, (_, i) => `/p/${9 - i}`),
  )
  for (const spelling of ['1e3', '0x2', '2.0', '%202', '+2', '0', '-1', '']) {
    const refused = await service.request('GET', `${ADMIN}/log?subject=pager&page=${spelling}`, { headers: { authorization: DEMO_BASIC } })
    t.equal(refused.status, 400, `page=${spelling}`)
    t.equal(refused.json().error.code, 'InvalidQueryOption', `page=${spelling}`)
  }
  const errors = await read('subject=pager&status=4xx')
  t.equal(errors.total, 30)
  t.ok(errors.entries.every((entry: { status: number }) => entry.status === 404))
  await service.database.pool.query("DELETE FROM request_log WHERE subject = 'pager'")
})

const chromium = findChromium()

t.test(
  'in a browser: settings, request log, rate counters, throughput',
  { skip: 'reason' in chromium ? `browser test skipped: ${chromium.reason}` : false },
  async (t) => {
    if ('reason' in chromium) return
    const { default: puppeteer } = await import('puppeteer-core')
    const browser = await puppeteer.launch({
      executablePath: chromium.path,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    })
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 1000 })
    await page.authenticate({ username: 'demo', password: 'demo' })
    const base = `http://127.0.0.1:${service.port}`
    const response = await page.goto(`${base}${ADMIN}`)
    t.equal(response?.status(), 200)
    await page.waitForFunction(() => (document.getElementById('maxBatchOperations') as HTMLInputElement).value !== '')
    t.equal(await page.$eval('[data-source="maxBatchOperations"]', (element) => element.textContent), 'configuration')

    // A bad value: the page shows the message the API gives for it, and nothing changes.
    const api = await service.request('PATCH', `${REFERENCE_ROOT}$settings`, {
      headers: { authorization: DEMO_BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ maxBatchOperations: -5 }),
    })
    t.equal(api.status, 400)
    const apiMessage = api.json().error.message as string
    await page.$eval('#maxBatchOperations', (input) => ((input as HTMLInputElement).value = ''))
    await page.type('#maxBatchOperations', '-5')
    await page.click('#save')
    await page.waitForFunction(() => document.getElementById('settings-message')!.textContent !== '')
    const shown = await page.$eval('#settings-message', (element) => element.textContent ?? '')
    t.ok(shown.startsWith(apiMessage), `the API's message: ${shown}`)
    t.equal(await page.$eval('#settings-message', (element) => element.className), 'error')

    // A good change, read back through the API.
    await page.$eval('#maxBatchOperations', (input) => ((input as HTMLInputElement).value = ''))
    await page.type('#maxBatchOperations', '50')
    await page.$eval('#pageSize', (input) => ((input as HTMLInputElement).value = ''))
    await page.type('#pageSize', '25')
    await page.click('#save')
    await page.waitForFunction(() => document.getElementById('settings-message')!.textContent!.startsWith('Saved'))
    const settings = (await service.request('GET', `${REFERENCE_ROOT}$settings`, { headers: { authorization: DEMO_BASIC } })).json()
    t.equal(settings.settings.maxBatchOperations, 50)
    t.equal(settings.settings.pageSize, 25)
    t.equal(settings.sources.maxBatchOperations, 'administrator')
    t.same(
      await page.$$eval('[data-source]', (elements) => elements.map((element) => element.textContent)),
      ['configuration', 'administrator', 'configuration', 'administrator', 'default'],
      'the page shows the new sources',
    )

    // Traffic logged at the demo's level (all): a batch of three and a 404.
    const built = buildMultipartBatch(Array.from({ length: 3 }, () => ({ method: 'GET', url: 'Catalog_Products?$top=1' })))
    t.equal(
      (
        await service.request('POST', `${TOKEN_ROOT}$batch`, {
          headers: { authorization: 'Bearer demo-token', 'content-type': `multipart/mixed; boundary=${built.boundary}` },
          body: built.body,
        })
      ).status,
      200,
    )
    t.equal((await service.request('GET', `${REFERENCE_ROOT}Catalog_Nothing`, { headers: { authorization: DEMO_BASIC } })).status, 404)
    await new Promise((resolve) => setTimeout(resolve, 500)) // the single requests' entries are written in the background
    const [batchRows] = (await service.database.pool.query(
      'SELECT DISTINCT `Пакет` AS batch FROM request_log WHERE `Пакет` IS NOT NULL',
    )) as unknown as [{ batch: string }[]]
    t.equal(batchRows.length, 1)
    const batchId = batchRows[0]!.batch

    await page.type('#log-status', '404')
    await page.click('#log-form button[type=submit]')
    await page.waitForFunction(
      () =>
        document.querySelectorAll('#log-body tr').length > 0 &&
        Array.from(document.querySelectorAll('#log-body tr')).every((row) => row.children[4]!.textContent === '404'),
    )
    t.match(await page.$eval('#log-body tr td.url', (cell) => cell.textContent), /Catalog_Nothing/)

    await page.$eval('#log-status', (input) => ((input as HTMLInputElement).value = ''))
    await page.type('#log-batch', batchId)
    await page.click('#log-form button[type=submit]')
    await page.waitForFunction(
      (id) => {
        const rows = Array.from(document.querySelectorAll('#log-body tr'))
        return rows.length > 0 && rows.every((row) => row.children[8]!.textContent === id)
      },
      {},
      batchId,
    )
    t.equal(await page.$$eval('#log-body tr', (rows) => rows.length), 4, 'the batch entry and its three operations')
    t.match(await page.$eval('#log-page', (element) => element.textContent), /page 1 of 1 \(4 entries\)/)

    // Rate counters and throughput, refreshed every two seconds. The counters are those of the current window
    // (a minute): requests made before a window ended count no longer, so demo keeps sending while we wait.
    const keepCounting = setInterval(() => {
      void service.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, { headers: { authorization: DEMO_BASIC } })
    }, 250)
    try {
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll('#rates-body tr')).some(
          (row) => row.children[0]!.textContent === 'demo' && Number(row.children[3]!.textContent) >= 3,
        ),
      )
    } finally {
      clearInterval(keepCounting)
    }
    await page.waitForFunction(() => /^\d+(\.\d)?$/.test(document.getElementById('requests-rate')!.textContent ?? ''))
    t.pass('rate counters and throughput shown')

    mkdirSync('test-artifacts', { recursive: true })
    await page.screenshot({ path: 'test-artifacts/admin-page.png', fullPage: true })
    t.ok(statSync('test-artifacts/admin-page.png').size > 10_000, 'screenshot kept in test-artifacts/admin-page.png')
  },
)
