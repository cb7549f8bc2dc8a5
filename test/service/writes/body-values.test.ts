// Converting body values to stored values, entity tags, bind addresses and period starts: every refusal
// is `InvalidValue` (or `BadRequest` for a header) with the property as target.
import t, { type Test } from 'tap'
import { ODataError } from '../../../src/errors.js'
import { loadModel } from '../../../src/model/load-model.js'
import { decimalText, storedValue } from '../../../src/service/writes/body-values.js'
import { bindReference, readProperties, objectWritable } from '../../../src/service/writes/entity-body.js'
import { parseEntityTags } from '../../../src/service/writes/preconditions.js'
import { periodStart } from '../../../src/service/writes/write-information-register.js'

const model = loadModel('config/demo.json')
const products = model.entitySetByName.get('Catalog_Products')!
const goods = model.entitySetByName.get('Document_GoodsReceipt_Goods')!
const receipt = model.entitySetByName.get('Document_GoodsReceipt')!
const property = (set: typeof products, name: string) => set.propertyByName.get(name)!

function refused(t: Test, run: () => unknown, code: string, target: string, label: string) {
  try {
    run()
    t.fail(`${label}: accepted`)
  } catch (error) {
    t.ok(error instanceof ODataError, `${label}: an ODataError`)
    t.equal((error as ODataError).code, code, `${label}: code`)
    t.equal((error as ODataError).target, target, `${label}: target`)
  }
}

t.test('decimals keep precision and scale, and are written at the column scale', async (t) => {
  const cases: [unknown, string][] = [
    [1, '1.000'],
    [1.5, '1.500'],
    ['2.25', '2.250'],
    [-0.001, '-0.001'],
    ['1.2300', '1.230'],
    [123456789012.345, '123456789012.345'],
    ['1e3', '1000.000'],
    [1e-3, '0.001'],
    ['-0', '0.000'],
    ['.5', '0.500'],
  ]
  for (const [input, expected] of cases) t.equal(decimalText(input, 15, 3, 'Quantity'), expected, JSON.stringify(input))
  t.equal(decimalText(42, 10, 0, 'Кратность'), '42', 'scale 0 has no point')
  for (const input of [1.2345, '0.0001', 1234567890123, '1e13', 'abc', '', '1.2.3', true, null, [], {}, 'NaN', '1e99999']) {
    refused(t, () => decimalText(input, 15, 3, 'Quantity'), 'InvalidValue', 'Quantity', JSON.stringify(input))
  }
})

t.test('strings, GUIDs, booleans, date-times and integers', async (t) => {
  t.equal(storedValue(property(products, 'Code'), '12345678901', 'Code'), '12345678901')
  refused(t, () => storedValue(property(products, 'Code'), '123456789012', 'Code'), 'InvalidValue', 'Code', 'one character too long')
  t.equal(storedValue(property(products, 'Unit'), '😀'.repeat(10), 'Unit'), '😀'.repeat(10), 'length counts characters, not UTF-16 units')
  refused(t, () => storedValue(property(products, 'Unit'), '😀'.repeat(11), 'Unit'), 'InvalidValue', 'Unit', 'eleven astral characters')
  refused(t, () => storedValue(property(products, 'Unit'), 'a\ud800b', 'Unit'), 'InvalidValue', 'Unit', 'lone surrogate')
  refused(t, () => storedValue(property(products, 'Code'), 12, 'Code'), 'InvalidValue', 'Code', 'a number for a string')
  t.equal(
    storedValue(property(products, 'Ref_Key'), 'ABCDEF01-2345-4789-ABCD-0123456789AB', 'Ref_Key'),
    'abcdef01-2345-4789-abcd-0123456789ab',
  )
  refused(t, () => storedValue(property(products, 'Ref_Key'), 'abcdef01-2345', 'Ref_Key'), 'InvalidValue', 'Ref_Key', 'short GUID')
  refused(t, () => storedValue(property(products, 'Ref_Key'), null, 'Ref_Key'), 'InvalidValue', 'Ref_Key', 'null key')
  t.equal(
    storedValue(property(receipt, 'Warehouse_Key'), null, 'Warehouse_Key'),
    '00000000-0000-0000-0000-000000000000',
    'null reference is the empty reference',
  )
  t.equal(storedValue(property(products, 'DeletionMark'), true, 'DeletionMark'), 1)
  refused(
    t,
    () => storedValue(property(products, 'DeletionMark'), 'true', 'DeletionMark'),
    'InvalidValue',
    'DeletionMark',
    'a string for a boolean',
  )
  t.equal(storedValue(property(receipt, 'Date'), '2024-01-31T10:00:00+03:00', 'Date'), '2024-01-31 07:00:00', 'offsets are turned into UTC')
  t.equal(storedValue(property(receipt, 'Date'), '2024-01-31T10:00:00', 'Date'), '2024-01-31 10:00:00', 'no offset is UTC')
  refused(t, () => storedValue(property(receipt, 'Date'), '2024-02-30T00:00:00', 'Date'), 'InvalidValue', 'Date', 'no such day')
  refused(t, () => storedValue(property(receipt, 'Date'), 20240101, 'Date'), 'InvalidValue', 'Date', 'a number for a date')
  t.equal(storedValue(property(goods, 'LineNumber'), 7, 'LineNumber'), 7)
  refused(t, () => storedValue(property(goods, 'LineNumber'), 1.5, 'LineNumber'), 'InvalidValue', 'LineNumber', 'a fraction for an integer')
  const recordType = model.entitySetByName.get('AccumulationRegister_Stock_RecordType')!
  t.equal(storedValue(property(recordType, 'RecordType'), 'Expense', 'RecordType'), 'Expense')
  refused(
    t,
    () => storedValue(property(recordType, 'RecordType'), 'expense', 'RecordType'),
    'InvalidValue',
    'RecordType',
    'enum values are case-sensitive',
  )
})

t.test('references by X_Key or X@odata.bind; unknown properties are ignored', async (t) => {
  const key = '6f0d4a8e-9b1c-4c1e-8f00-0123456789ab'
  for (const address of [
    `Catalog_Warehouses(guid'${key}')`,
    `Catalog_Warehouses(${key})`,
    `Catalog_Warehouses(Ref_Key=guid'${key}')`,
    `http://host/api/v4/Catalog_Warehouses(${key})`,
    `/odata/standard.odata/v4/Catalog_Warehouses(${key.toUpperCase()})`,
  ]) {
    t.equal(bindReference(model, 'Catalog_Warehouses', address, 'Warehouse@odata.bind'), key, address)
  }
  refused(
    t,
    () => bindReference(model, 'Catalog_Warehouses', `Catalog_Products(${key})`, 'Warehouse@odata.bind'),
    'InvalidValue',
    'Warehouse@odata.bind',
    'another set',
  )
  // A dot segment is refused here as in an operation URL, however it is spelt.
  for (const address of [
    `../Catalog_Warehouses(${key})`,
    `/api/v4/x/../Catalog_Warehouses(${key})`,
    `%2e%2E/Catalog_Warehouses(${key})`,
    `./Catalog_Warehouses(${key})`,
  ])
    refused(
      t,
      () => bindReference(model, 'Catalog_Warehouses', address, 'Warehouse@odata.bind'),
      'InvalidValue',
      'Warehouse@odata.bind',
      address,
    )
  refused(
    t,
    () => bindReference(model, 'Catalog_Warehouses', "Catalog_Warehouses(guid'nope')", 'Warehouse@odata.bind'),
    'InvalidValue',
    'Warehouse@odata.bind',
    'bad key',
  )
  refused(
    t,
    () => bindReference(model, 'Catalog_Warehouses', 42, 'Warehouse@odata.bind'),
    'InvalidValue',
    'Warehouse@odata.bind',
    'not a string',
  )
  const values = readProperties(
    model,
    {
      'Warehouse@odata.bind': `Catalog_Warehouses(${key})`,
      Colour: 'red',
      '@odata.etag': 'W/"1"',
      'Number@odata.type': '#String',
      Number: 'N1',
    },
    objectWritable(receipt),
  )
  t.same(
    [...values],
    [
      ['Number', 'N1'],
      ['Warehouse_Key', key],
    ],
  )
  refused(
    t,
    () =>
      readProperties(
        model,
        { Warehouse_Key: key, 'Warehouse@odata.bind': 'Catalog_Warehouses(00000000-0000-4000-8000-000000000001)' },
        objectWritable(receipt),
      ),
    'InvalidValue',
    'Warehouse@odata.bind',
    'two different references',
  )
  const posted = readProperties(model, { Posted: true, DataVersion: 'x', Ref_Key: key }, objectWritable(receipt))
  t.equal(posted.size, 0, 'Posted, DataVersion and Ref_Key are not writable properties')
})

t.test('entity tags', async (t) => {
  t.equal(parseEntityTags(' * ', 'If-Match'), '*')
  t.same(parseEntityTags('W/"AAAAAgAAAAA="', 'If-Match'), ['AAAAAgAAAAA='])
  t.same(parseEntityTags('"a", W/"b+/="', 'If-Match'), ['a', 'b+/='])
  refused(t, () => parseEntityTags('abc', 'If-Match'), 'BadRequest', 'If-Match', 'unquoted')
  refused(t, () => parseEntityTags('W/"a" "b"', 'If-Match'), 'BadRequest', 'If-Match', 'missing comma')
})

t.test('period starts of periodic information registers', async (t) => {
  t.equal(periodStart('2024-05-17 13:45:10', 'Second'), '2024-05-17 13:45:10')
  t.equal(periodStart('2024-05-17 13:45:10', 'Day'), '2024-05-17 00:00:00')
  t.equal(periodStart('2024-05-17 13:45:10', 'Month'), '2024-05-01 00:00:00')
  t.equal(periodStart('2024-05-17 13:45:10', 'Quarter'), '2024-04-01 00:00:00')
  t.equal(periodStart('2024-12-31 23:59:59', 'Quarter'), '2024-10-01 00:00:00')
  t.equal(periodStart('2024-05-17 13:45:10', 'Year'), '2024-01-01 00:00:00')
})
