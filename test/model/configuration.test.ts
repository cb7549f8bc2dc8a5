// The configuration is validated at start-up; every problem is reported by its path in the file.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildModel } from '../../src/model/build-model.js'
import { ConfigurationError, loadConfigurationFile, validateConfiguration, type Configuration } from '../../src/model/configuration.js'
import { loadModel } from '../../src/model/load-model.js'

const demo = (): Configuration => JSON.parse(JSON.stringify(loadConfigurationFile('config/demo.json')))

function problemsOf(action: () => unknown): { path: string; message: string }[] {
  try {
    action()
  } catch (error) {
    if (error instanceof ConfigurationError) return [...error.problems]
    throw error
  }
  return []
}

t.test('the demo configuration is valid and declares the sets of demo-configuration.md', async (t) => {
  const model = loadModel('config/demo.json')
  const names = model.entitySets.map((s) => s.name)
  for (const expected of [
    'Catalog_Products',
    'Catalog_Warehouses',
    'Catalog_Counterparties',
    'Catalog_Организации',
    'ChartOfAccounts_Main',
    'Document_GoodsReceipt',
    'Document_GoodsReceipt_Goods',
    'Document_GoodsSale',
    'Document_GoodsSale_Goods',
    'InformationRegister_Prices',
    'InformationRegister_КурсыВалют',
    'InformationRegister_Barcodes',
    'InformationRegister_Settings',
    'AccumulationRegister_Stock',
    'AccumulationRegister_Stock_RecordType',
    'AccumulationRegister_Sales',
    'AccumulationRegister_Sales_RecordType',
    'AccountingRegister_Main',
    'AccountingRegister_Main_RecordType',
  ]) {
    t.ok(names.includes(expected), expected)
  }
  const fns = (set: string) => model.entitySetByName.get(set)!.functions.map((f) => f.name)
  t.same(fns('AccumulationRegister_Stock'), ['Balance', 'Turnovers', 'BalanceAndTurnovers'])
  t.same(fns('AccumulationRegister_Sales'), ['Turnovers'])
  t.same(fns('InformationRegister_Prices'), ['SliceLast', 'SliceFirst'])
  t.same(fns('InformationRegister_Barcodes'), [])
  t.same(fns('AccountingRegister_Main'), ['Balance', 'Turnovers', 'BalanceAndTurnovers', 'ExtDimensions', 'RecordsWithExtDimensions'])
  t.same(
    model.entitySetByName.get('InformationRegister_Settings')!.key.map((k) => k.name),
    ['SurrogateKey'],
  )
  t.same(
    model.entitySetByName.get('Document_GoodsSale')!.actions.map((a) => a.name),
    ['Post', 'Unpost'],
  )
  t.equal(model.settings.logLevel, 'all')
  t.equal(model.settings.maxBatchOperations, 100)
  t.equal(model.settings.maxBatchSizeMB, 10)
  const reader = model.subjects.find((s) => s.name === 'reader')!
  t.equal(reader.profile.maxBatchOperations, 20)
  t.ok(reader.profile.canRead('Catalog_Products'))
  t.notOk(reader.profile.canWrite('Catalog_Products'))
})

t.test('schema errors name each bad field by its path', async (t) => {
  const config = demo()
  // Values the schema refuses, written past the configuration's types on purpose.
  ;(config.catalogs[0]!.attributes![0] as { type: string }).type = 'text'
  Object.assign(config.catalogs[1]!, { colour: 'red' })
  delete (config.documents[1] as { numberLength?: number }).numberLength
  ;(config.settings as { logLevel?: string }).logLevel = 'verbose'
  config.informationRegisters![0]!.dimensions[0]!.to = 'Nowhere.Products'
  const problems = problemsOf(() => validateConfiguration(config))
  const paths = problems.map((p) => p.path)
  t.ok(paths.includes('/catalogs/0/attributes/0/type'), 'bad enum value')
  t.ok(paths.includes('/catalogs/1/colour'), 'unknown field')
  t.ok(paths.includes('/documents/1/numberLength'), 'missing field')
  t.ok(paths.includes('/settings/logLevel'), 'bad setting')
  t.ok(paths.includes('/informationRegisters/0/dimensions/0/to'), 'bad reference pattern')
  t.ok(problems.find((p) => p.path === '/documents/1/numberLength')!.message.includes('required'))
})

t.test('cross-reference errors name each bad field by its path', async (t) => {
  const config = demo()
  config.documents[0]!.attributes![0]!.to = 'Catalog.Nowhere'
  config.documents[0]!.posting![0]!.values.Colour = 'row.Product'
  config.documents[0]!.posting![0]!.values.Product = 'row.Nothing'
  config.documents[1]!.posting![2]!.debit!.account = '99'
  config.accumulationRegisters![1]!.recorders = ['GoodsSale', 'Invoice']
  config.subjects[1]!.profile = 'admin'
  config.documents[0]!.posting![0]!.recordType = undefined
  const problems = problemsOf(() => buildModel(validateConfiguration(JSON.parse(JSON.stringify(config)))))
  const paths = problems.map((p) => p.path)
  t.ok(paths.includes('/documents/0/attributes/0/to'), 'unknown reference target')
  t.ok(paths.includes('/documents/0/posting/0/values/Colour'), 'unknown register column')
  t.ok(paths.includes('/documents/0/posting/0/values/Product'), 'unknown source attribute')
  t.ok(paths.includes('/documents/1/posting/2/debit/account'), 'unknown account')
  t.ok(paths.includes('/accumulationRegisters/1/recorders/1'), 'unknown recorder')
  t.ok(paths.includes('/subjects/1/profile'), 'unknown profile')
  t.ok(paths.includes('/documents/0/posting/0/recordType'), 'balance register needs a record type')
})

t.test('a YAML file is read like JSON, and a file that does not parse is one clear problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'config-'))
  const yamlFile = join(dir, 'app.yaml')
  writeFileSync(
    yamlFile,
    [
      'name: Tiny',
      'catalogs:',
      '  - name: Items',
      '    codeLength: 5',
      '    descriptionLength: 50',
      'documents: []',
      'profiles:',
      '  - { name: all, read: ["*"], write: ["*"] }',
      'subjects:',
      '  - { name: u, token: u-token-123, profile: all }',
    ].join('\n'),
  )
  const model = loadModel(yamlFile)
  t.same(
    model.entitySets.map((s) => s.name),
    ['Catalog_Items'],
  )
  const broken = join(dir, 'broken.json')
  writeFileSync(broken, '{"name": ')
  const problems = problemsOf(() => loadConfigurationFile(broken))
  t.equal(problems.length, 1)
  t.match(problems[0]!.message, /cannot be parsed/)
})

t.test('names that MySQL could not hold are refused', async (t) => {
  const config = demo()
  config.catalogs[0]!.name = 'A'.repeat(31)
  config.catalogs[1]!.name = 'Bad-Name'
  const paths = problemsOf(() => validateConfiguration(config)).map((p) => p.path)
  t.ok(paths.includes('/catalogs/0/name'))
  t.ok(paths.includes('/catalogs/1/name'))
})
