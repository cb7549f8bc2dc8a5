// Server-driven paging: `Prefer: odata.maxpagesize` and the pageSize setting give pages with an
// `@odata.nextLink` whose `$skiptoken` is the last row's order values (keyset paging). Following the
// links yields every row exactly once, in order, with $filter, $orderby (nulls included), $select,
// $expand, $top, $skip and $count; a forged or foreign token is 400, never an SQL error.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DEMO_BASIC, startTestService, type TestService } from '../../support/test-service.js'
import { R } from './support/read-fixture.js'

const service = await startTestService('read_paging', { data: 'reads' })
t.teardown(() => service.close())

interface Page {
  readonly status: number
  readonly body: { value: Record<string, unknown>[]; '@odata.nextLink'?: string; '@odata.count'?: number }
  readonly applied: string | undefined
}

async function page(target: TestService, pathOrLink: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = pathOrLink.startsWith('http')
    ? await target.request('GET', pathOrLink.slice(pathOrLink.indexOf('/odata/')), { headers: { Authorization: DEMO_BASIC, ...headers } })
    : await target.get(pathOrLink, headers)
  if (response.status !== 200) throw new Error(`${pathOrLink}: ${response.status} ${response.text.slice(0, 300)}`)
  return { status: response.status, body: response.json(), applied: response.headers['preference-applied'] as string | undefined }
}

/** Every page from the first, following next links; the rows and the size of each page. */
async function allPages(target: TestService, path: string, headers: Record<string, string> = {}) {
  const sizes: number[] = []
  const rows: Record<string, unknown>[] = []
  const links: string[] = []
  let next: string | undefined = path
  while (next !== undefined) {
    const current: Page = await page(target, next, headers)
    sizes.push(current.body.value.length)
    rows.push(...current.body.value)
    next = current.body['@odata.nextLink']
    if (next !== undefined) links.push(next)
    if (sizes.length > 50) throw new Error('paging does not end')
  }
  return { sizes, rows, links }
}

t.test('odata.maxpagesize: pages, next links, every row once in order', async (t) => {
  const first = await page(service, 'Catalog_Products?$select=Code', { Prefer: 'odata.maxpagesize=2' })
  t.equal(first.applied, 'odata.maxpagesize=2')
  t.match(
    first.body['@odata.nextLink'],
    /^http:\/\/127\.0\.0\.1:\d+\/odata\/standard\.odata\/v4\/Catalog_Products\?\$select=Code&\$skiptoken=[A-Za-z0-9_-]+$/,
  )
  const all = await allPages(service, 'Catalog_Products?$select=Code&$orderby=Code', { Prefer: 'odata.maxpagesize=2' })
  t.same(all.sizes, [2, 2, 2, 1])
  t.same(
    all.rows.map((r) => r.Code),
    ['001', '002', '003', '004', '005', '006', '007'],
  )
  const unpaged = await service.values("Catalog_Products?$select=Code,Unit&$orderby=Unit desc,Code&$filter=Code ne '003'")
  const paged = await allPages(service, "Catalog_Products?$select=Code,Unit&$orderby=Unit desc,Code&$filter=Code ne '003'", {
    Prefer: 'odata.maxpagesize=4',
  })
  t.same(paged.rows, unpaged, 'a paged read equals the unpaged one')
  t.same(paged.sizes, [4, 2])
  const spelled = await page(service, 'Catalog_Products', { Prefer: 'return=minimal, maxpagesize=3' })
  t.equal(spelled.applied, 'maxpagesize=3', 'the 4.01 spelling is echoed as sent')
  t.equal(spelled.body.value.length, 3)
  const ignored = await page(service, 'Catalog_Products', { Prefer: 'odata.maxpagesize=lots' })
  t.equal(ignored.applied, undefined, 'a malformed preference is ignored')
  t.equal(ignored.body.value.length, 7)
})

t.test('$top, $skip and $count across pages', async (t) => {
  const topped = await allPages(service, 'Catalog_Products?$select=Code&$orderby=Code&$top=5', { Prefer: 'odata.maxpagesize=2' })
  t.same(topped.sizes, [2, 2, 1])
  t.same(
    topped.rows.map((r) => r.Code),
    ['001', '002', '003', '004', '005'],
  )
  t.match(topped.links[0], /\$top=3&/)
  t.match(topped.links[1], /\$top=1&/)
  const skipped = await allPages(service, 'Catalog_Products?$select=Code&$orderby=Code&$skip=2', { Prefer: 'odata.maxpagesize=2' })
  t.same(
    skipped.rows.map((r) => r.Code),
    ['003', '004', '005', '006', '007'],
  )
  t.notOk(
    skipped.links.some((l) => l.includes('$skip=')),
    '$skip is not repeated: the token is past it',
  )
  const exact = await allPages(service, 'Catalog_Products?$select=Code&$top=4', { Prefer: 'odata.maxpagesize=2' })
  t.same(exact.sizes, [2, 2], 'no empty last page')
  const counted = await allPages(service, "Catalog_Products?$select=Code&$count=true&$filter=Unit ne 'x'", {
    Prefer: 'odata.maxpagesize=3',
  })
  t.same(counted.sizes, [3, 3, 1])
  const second = await page(service, counted.links[0]!, { Prefer: 'odata.maxpagesize=3' })
  t.equal(second.body['@odata.count'], 7, 'every page states the whole count')
})

t.test('orders with nulls and descending items, navigations, expansions', async (t) => {
  for (const orderby of ['Warehouse/Description', 'Warehouse/Description desc', 'Warehouse/Description desc,Number desc']) {
    const unpaged = await service.values(`Document_GoodsReceipt?$select=Number&$orderby=${orderby}`)
    const paged = await allPages(service, `Document_GoodsReceipt?$select=Number&$orderby=${orderby}`, { Prefer: 'odata.maxpagesize=1' })
    t.same(paged.rows, unpaged, orderby)
    t.equal(paged.rows.length, 3, `${orderby}: the document with an empty warehouse is not lost`)
  }
  const goods = await allPages(service, `Document_GoodsReceipt(${R.first})/Goods?$select=LineNumber`, { Prefer: 'odata.maxpagesize=2' })
  t.same(goods.rows, [{ LineNumber: 1 }, { LineNumber: 2 }, { LineNumber: 3 }])
  t.match(goods.links[0], new RegExp(`/Document_GoodsReceipt\\(${R.first}\\)/Goods\\?`))
  const movements = await allPages(
    service,
    'AccumulationRegister_Stock_RecordType?$select=LineNumber&$expand=Product($select=Code)&$orderby=Period desc',
    { Prefer: 'odata.maxpagesize=4' },
  )
  t.same(movements.sizes, [4, 2])
  t.same(
    movements.rows,
    await service.values('AccumulationRegister_Stock_RecordType?$select=LineNumber&$expand=Product($select=Code)&$orderby=Period desc'),
  )
})

t.test('forged and foreign tokens are refused with 400', async (t) => {
  const first = await page(service, 'Catalog_Products?$select=Code&$orderby=Description', { Prefer: 'odata.maxpagesize=2' })
  const link = first.body['@odata.nextLink']!
  const token = link.slice(link.indexOf('$skiptoken=') + 11)
  const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[]
  const forge = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url')
  const cases: [string, string][] = [
    ['garbage', '!!!'],
    ['not JSON', Buffer.from('{nope').toString('base64url')],
    ['wrong shape', forge([decoded[0]])],
    ['a number for a string', forge([decoded[0], 5, decoded[2]])],
    ['SQL in the GUID slot', forge([decoded[0], decoded[1], "x' OR 1=1 --"])],
    ['foreign fingerprint', forge(['00000000', ...decoded.slice(1)])],
    ['long garbage', 'A'.repeat(3000)],
  ]
  for (const [label, forged] of cases) {
    const response = await service.get(`Catalog_Products?$select=Code&$orderby=Description&$skiptoken=${forged}`)
    t.equal(response.status, 400, label)
    t.equal(response.json().error.code, 'InvalidSkipToken', label)
  }
  const otherQuery = await service.get(`Catalog_Products?$select=Code&$orderby=Code&$skiptoken=${token}`)
  t.equal(otherQuery.json().error.code, 'InvalidSkipToken', 'a token of another $orderby')
  const injected = await service.get(
    `Catalog_Products?$select=Code&$orderby=Description&$skiptoken=${forge([decoded[0], "'; DROP TABLE c_Products; --", decoded[2]])}`,
  )
  t.equal(injected.status, 200, 'a string value in a string slot is only a value')
  t.equal((await service.values('Catalog_Products?$select=Code')).length, 7, 'the table is still there')
  const apply = await service.get(`Catalog_Products?$apply=aggregate($count as N)&$skiptoken=${token}`)
  t.equal(apply.json().error.code, 'InvalidSkipToken', 'no paging where rows have no key')
})

t.test('the pageSize setting', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'read-paging-'))
  const configuration = JSON.parse(readFileSync('config/demo.json', 'utf8'))
  configuration.settings.pageSize = 3
  delete configuration.$schema
  const file = join(directory, 'paged.json')
  writeFileSync(file, JSON.stringify(configuration))
  const paged = await startTestService('read_paging_setting', { data: 'reads', configFile: file })
  t.teardown(() => paged.close())
  const all = await allPages(paged, 'Catalog_Products?$select=Code')
  t.same(all.sizes, [3, 3, 1], 'pages of the setting without a preference')
  const first = await page(paged, 'Catalog_Products')
  t.equal(first.applied, undefined)
  const larger = await page(paged, 'Catalog_Products', { Prefer: 'odata.maxpagesize=5' })
  t.equal(larger.body.value.length, 3, 'the smaller of preference and setting')
  t.equal(larger.applied, 'odata.maxpagesize=3')
  const smaller = await page(paged, 'Catalog_Products', { Prefer: 'odata.maxpagesize=1' })
  t.equal(smaller.body.value.length, 1)
  t.equal(smaller.applied, 'odata.maxpagesize=1')
  const topped = await page(paged, 'Catalog_Products?$top=2')
  t.equal(topped.body.value.length, 2)
  t.notOk(topped.body['@odata.nextLink'], '$top below the page size: one page')
})
