// The service document (src/model/service-document.ts): every entity set of the model, with its URL.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { buildServiceDocument } from '../../src/model/service-document.js'

const model = loadModel('config/demo.json')
const serviceRoot = 'https://example.test/odata/standard.odata/v4/'

interface ServiceDocument {
  '@odata.context': string
  value: { name: string; kind: string; url: string }[]
}
const read = (text: string) => JSON.parse(text) as ServiceDocument

t.test('the context URL is the metadata document of the service root', async (t) => {
  t.equal(read(buildServiceDocument(model, serviceRoot))['@odata.context'], `${serviceRoot}$metadata`)
  t.equal(
    read(buildServiceDocument(model, serviceRoot.slice(0, -1)))['@odata.context'],
    `${serviceRoot}$metadata`,
    'a root without its final slash gets one',
  )
  const tokenRoot = 'https://example.test/api/t/demo-token/v4/'
  t.equal(read(buildServiceDocument(model, tokenRoot))['@odata.context'], `${tokenRoot}$metadata`, 'each flavour has its own root')
})

t.test('every entity set is listed, in model order, with its name as relative URL', async (t) => {
  const document = read(buildServiceDocument(model, serviceRoot))
  t.same(Object.keys(document), ['@odata.context', 'value'], 'nothing else at the top level')
  t.same(
    document.value,
    model.entitySets.map((set) => ({ name: set.name, kind: 'EntitySet', url: set.name })),
  )
  t.equal(document.value.length, model.entitySets.length)
  for (const name of [
    'Catalog_Products',
    'Document_GoodsReceipt',
    'Document_GoodsReceipt_Goods',
    'AccumulationRegister_Stock',
    'AccumulationRegister_Stock_RecordType',
    'AccountingRegister_Main',
  ]) {
    t.ok(
      document.value.some((item) => item.name === name),
      name,
    )
  }
})

t.test('Cyrillic names are intact, not percent-encoded or escaped', async (t) => {
  const text = buildServiceDocument(model, serviceRoot)
  t.ok(text.includes('{"name":"Catalog_Организации","kind":"EntitySet","url":"Catalog_Организации"}'))
  t.ok(text.includes('{"name":"InformationRegister_КурсыВалют","kind":"EntitySet","url":"InformationRegister_КурсыВалют"}'))
  t.notMatch(text, /\\u|%D0/, 'neither JSON \\u escapes nor percent-encoding')
})
