// The named fixtures of the wire cases (protocol/README.md): objects a case asks for by name in
// `given`, made fresh for that case through the service's own interface (reference root, demo:demo)
// before its first step, so that a case that changes one touches nothing another case reads. A fixture
// that cannot be made fails the case with the service's answer.
import { DEMO_BASIC, REFERENCE_ROOT, type TestService } from './test-service.js'

export const WIRE_FIXTURES = ['product', 'warehouse', 'counterparty', 'receipt', 'sale', 'posted receipt', 'posted sale'] as const
export type WireFixture = (typeof WIRE_FIXTURES)[number]

const CATALOGS: Partial<Record<WireFixture, string>> = {
  product: 'Catalog_Products',
  warehouse: 'Catalog_Warehouses',
  counterparty: 'Catalog_Counterparties',
}
const DOCUMENTS: Partial<Record<WireFixture, [set: string, posted: boolean]>> = {
  receipt: ['Document_GoodsReceipt', false],
  sale: ['Document_GoodsSale', false],
  'posted receipt': ['Document_GoodsReceipt', true],
  'posted sale': ['Document_GoodsSale', true],
}

let made = 0

async function send(
  service: TestService,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; etag: string; json: Record<string, unknown> | undefined }> {
  const text = body === undefined ? undefined : JSON.stringify(body)
  const response = await service.request(method, `${REFERENCE_ROOT}${path}`, {
    headers: { Authorization: DEMO_BASIC, ...(text === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: text,
  })
  const ok = method === 'POST' && path.endsWith('/Post') ? response.status === 204 : response.status === 201
  if (!ok) throw new Error(`the fixture could not be made: ${method} ${path} answered ${response.status} ${response.text.slice(0, 300)}`)
  return { status: response.status, etag: String(response.headers.etag ?? ''), json: response.text === '' ? undefined : response.json() }
}

/**
 * Makes the fixture and returns its variables: `<name>` is its key, `<name>_etag` its ETag. A catalog
 * item has Code `G<n>` (unique within the run); a document has one line of Goods (product0 at
 * warehouse0, counterparty0, organization0 of the data set: quantity 1, price 10, amount 10), dated
 * 2024-06-01T12:00:00Z, posted when its name says so.
 */
export async function makeFixture(
  service: TestService,
  values: Record<string, string>,
  name: string,
  fixture: WireFixture,
): Promise<Record<string, string>> {
  made += 1
  const catalog = CATALOGS[fixture]
  if (catalog !== undefined) {
    const created = await send(service, 'POST', catalog, { Code: `G${made}`, Description: `Fixture ${name}` })
    return { [name]: String(created.json?.Ref_Key), [`${name}_etag`]: created.etag }
  }
  const [set, posted] = DOCUMENTS[fixture]!
  const created = await send(service, 'POST', set, {
    Number: `G${made}`,
    Date: '2024-06-01T12:00:00Z',
    Warehouse_Key: values.warehouse0,
    Counterparty_Key: values.counterparty0,
    Organization_Key: values.organization0,
    Goods: [{ Product_Key: values.product0, Quantity: 1, Price: 10, Amount: 10 }],
  })
  const key = String(created.json?.Ref_Key)
  if (!posted) return { [name]: key, [`${name}_etag`]: created.etag }
  const post = await send(service, 'POST', `${set}(${key})/Post`)
  return { [name]: key, [`${name}_etag`]: post.etag }
}
