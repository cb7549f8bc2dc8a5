// Reading one entity by key in every form of decisions.md §2, with Cyrillic names percent-encoded,
// and the errors for keys that are malformed or name nothing.
import t from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_keys', { data: 'demo' })
t.teardown(() => service.close())
const headers = { Authorization: DEMO_BASIC }
const get = (path: string) => service.request('GET', `${REFERENCE_ROOT}${path}`, { headers })
const one = async <T>(sql: string): Promise<T> => ((await service.database.pool.query(sql))[0] as T[])[0]!

const product = await one<{ Ref_Key: string; Code: string; Description: string }>(
  'SELECT Ref_Key, Code, Description FROM c_Products ORDER BY Code LIMIT 1',
)

t.test('catalog item: four key forms give the same entity', async (t) => {
  for (const form of [
    `guid'${product.Ref_Key}'`,
    product.Ref_Key,
    `Ref_Key=guid'${product.Ref_Key}'`,
    `Ref_Key=${product.Ref_Key}`,
    `guid'${product.Ref_Key.toUpperCase()}'`,
  ]) {
    const response = await get(`Catalog_Products(${form})`)
    t.equal(response.status, 200, form)
    const body = response.json()
    t.equal(body.Ref_Key, product.Ref_Key)
    t.equal(body.Code, product.Code)
    t.equal(body['@odata.etag'], 'W/"1"')
    t.equal(response.headers.etag, 'W/"1"')
    t.match(body['@odata.context'], /\$metadata#Catalog_Products\/\$entity$/)
  }
  const response = await get(`Catalog_Products(${product.Ref_Key})?$select=Description`)
  t.same(
    Object.keys(response.json()).filter((k) => !k.startsWith('@')),
    ['Description'],
  )
})

t.test('document, table-part row, record set and movement row', async (t) => {
  const receipt = await one<{ Ref_Key: string; Date: string }>('SELECT Ref_Key, Date FROM d_GoodsReceipt ORDER BY Date LIMIT 1')
  const document = (await get(`Document_GoodsReceipt(guid'${receipt.Ref_Key}')`)).json()
  t.equal(document.Posted, true)
  t.equal(document.Date, `${receipt.Date.replace(' ', 'T')}Z`, 'date-times in UTC with Z')
  t.type(document.Warehouse_Key, 'string')

  const row = await get(`Document_GoodsReceipt_Goods(Ref_Key=guid'${receipt.Ref_Key}',LineNumber=1)`)
  t.equal(row.status, 200)
  t.equal(row.json().LineNumber, 1)
  t.type(row.json().Quantity, 'number', 'decimals as JSON numbers')

  const recordSet = await get(
    `AccumulationRegister_Stock(Recorder=guid'${receipt.Ref_Key}',Recorder_Type='StandardODATA.Document_GoodsReceipt')`,
  )
  t.equal(recordSet.status, 200)
  t.equal(recordSet.json().Recorder, receipt.Ref_Key)
  const stringRecorder = await get(
    `AccumulationRegister_Stock(Recorder='${receipt.Ref_Key}',Recorder_Type='StandardODATA.Document_GoodsReceipt')`,
  )
  t.equal(stringRecorder.status, 200, "Recorder='…' form")
  const wrongType = await get(
    `AccumulationRegister_Stock(Recorder=guid'${receipt.Ref_Key}',Recorder_Type='StandardODATA.Document_GoodsSale')`,
  )
  t.equal(wrongType.status, 404, 'a record set of a recorder that does not exist')

  const movement = await get(
    `AccumulationRegister_Stock_RecordType(Recorder=guid'${receipt.Ref_Key}',Recorder_Type='StandardODATA.Document_GoodsReceipt',LineNumber=1)`,
  )
  t.equal(movement.status, 200)
  t.equal(movement.json().RecordType, 'Receipt')
  t.equal(movement.json().Active, true)
})

t.test('information register records, Cyrillic names percent-encoded, SurrogateKey', async (t) => {
  const price = await one<{ Period: string; Product_Key: string; PriceType: string; Price: string }>(
    'SELECT * FROM ir_Prices ORDER BY Period, Product_Key LIMIT 1',
  )
  const iso = price.Period.replace(' ', 'T')
  for (const period of [`datetime'${iso}'`, iso, `${iso}Z`, `datetime'${iso}+00:00'`]) {
    const response = await get(
      `InformationRegister_Prices(Period=${period},Product_Key=guid'${price.Product_Key}',PriceType='${price.PriceType}')`,
    )
    t.equal(response.status, 200, period)
    t.equal(response.json().Price, Number(price.Price))
  }
  const rate = await one<{ Period: string; Курс: string }>(
    "SELECT Period, `Курс` FROM `ir_КурсыВалют` WHERE `Валюта` = 'USD' ORDER BY Period LIMIT 1",
  )
  const path = `${encodeURIComponent('InformationRegister_КурсыВалют')}(Period=datetime'${rate.Period.replace(' ', 'T')}',${encodeURIComponent('Валюта')}='USD')`
  const response = await get(path)
  t.equal(response.status, 200)
  t.equal(response.json().Курс, Number(rate.Курс))
  t.match(response.json()['@odata.context'], /InformationRegister_КурсыВалют\/\$entity$/)

  await service.database.pool.query("INSERT INTO ir_Settings (SurrogateKey, Value) VALUES (0, 'on')")
  const settings = await get('InformationRegister_Settings(SurrogateKey=0)')
  t.equal(settings.status, 200)
  t.same({ SurrogateKey: settings.json().SurrogateKey, Value: settings.json().Value }, { SurrogateKey: 0, Value: 'on' })
  const organization = await one<{ Ref_Key: string }>('SELECT Ref_Key FROM `c_Организации` LIMIT 1')
  const cyrillic = await service.request(
    'GET',
    `${TOKEN_ROOT}${encodeURIComponent('Catalog_Организации')}(${organization.Ref_Key})?token=demo-token`,
  )
  t.equal(cyrillic.status, 200)
  t.match(cyrillic.json().Description, /^Организации \d+$/)
})

t.test('keys that name nothing, or are malformed', async (t) => {
  const absent = await get(`Catalog_Products(guid'00000000-0000-4000-8000-000000000000')`)
  t.equal(absent.status, 404)
  t.equal(absent.json().error.code, 'NotFound')
  const cases: [string, string][] = [
    [`Catalog_Products(guid'not-a-guid')`, 'InvalidLiteral'],
    [`Catalog_Products(Code='1')`, 'InvalidKey'],
    [`Catalog_Products(${product.Ref_Key}`, 'InvalidUrl'],
    [`Document_GoodsReceipt_Goods(${product.Ref_Key})`, 'InvalidKey'],
    [`Document_GoodsReceipt_Goods(Ref_Key=${product.Ref_Key})`, 'InvalidKey'],
    [`Document_GoodsReceipt_Goods(Ref_Key=${product.Ref_Key},LineNumber=1,LineNumber=2)`, 'InvalidKey'],
    [`Document_GoodsReceipt_Goods(Ref_Key=${product.Ref_Key},LineNumber=x)`, 'InvalidLiteral'],
    [`Document_GoodsReceipt_Goods(Ref_Key=${product.Ref_Key},LineNumber=99999999999)`, 'InvalidLiteral'],
    [
      `InformationRegister_Prices(Period=datetime'2024-02-30T00:00:00',Product_Key=${product.Ref_Key},PriceType='Retail')`,
      'InvalidLiteral',
    ],
    [`InformationRegister_Prices(Period=datetime'2024-01-01T00:00:00',Product_Key=${product.Ref_Key},PriceType='it's')`, 'InvalidUrl'],
    [`AccumulationRegister_Stock(Recorder=${product.Ref_Key},Recorder_Type='StandardODATA.Catalog_Products')`, 'InvalidKey'],
    [`Catalog_Products(%ZZ)`, 'InvalidUrl'],
    [`Catalog_Products(guid'${product.Ref_Key}');%20DROP%20TABLE%20c_Products;%20--)`, 'InvalidUrl'],
  ]
  for (const [path, code] of cases) {
    const response = await get(path)
    t.equal(response.status, 400, path)
    t.equal(response.json().error.code, code, path)
  }
  t.equal((await get(`Catalog_Products(guid'${product.Ref_Key}')`)).status, 200, 'the table is still there')
})

t.test('the plain read by key answers exactly what the general read pipeline answers', async (t) => {
  const receipt = await one<{ Ref_Key: string }>('SELECT Ref_Key FROM d_GoodsReceipt ORDER BY Date LIMIT 1')
  const rate = await one<{ Period: string }>("SELECT Period FROM `ir_КурсыВалют` WHERE `Валюта` = 'EUR' ORDER BY Period LIMIT 1")
  const account = await one<{ Ref_Key: string }>('SELECT Ref_Key FROM coa_Main ORDER BY Code LIMIT 1')
  const paths = [
    `Catalog_Products(${product.Ref_Key})`,
    `Document_GoodsReceipt(${receipt.Ref_Key})`,
    `Document_GoodsReceipt_Goods(Ref_Key=${receipt.Ref_Key},LineNumber=1)`,
    `AccumulationRegister_Stock_RecordType(Recorder=${receipt.Ref_Key},Recorder_Type='StandardODATA.Document_GoodsReceipt',LineNumber=1)`,
    `${encodeURIComponent('InformationRegister_КурсыВалют')}(Period=${rate.Period.replace(' ', 'T')}Z,${encodeURIComponent('Валюта')}='EUR')`,
    `ChartOfAccounts_Main(${account.Ref_Key})`,
  ]
  for (const path of paths) {
    const plain = await get(path)
    const general = await get(`${path}?$format=json`)
    t.equal(plain.status, 200, path)
    t.equal(plain.text, general.text, `${path}: the same body`)
    t.equal(plain.headers.etag, general.headers.etag, `${path}: the same ETag`)
    t.equal(plain.headers['content-type'], general.headers['content-type'], `${path}: the same content type`)
  }
})
