// Parameters of virtual-table calls: both places, both quote styles, every refusal names the parameter.
import t from 'tap'
import { ODataError } from '../../src/errors.js'
import { loadModel } from '../../src/model/load-model.js'
import { parseFunctionParameters } from '../../src/odata/resource-path.js'
import { parseVirtualTableArguments } from '../../src/virtual/virtual-table-arguments.js'

const model = loadModel('config/demo.json')
const stock = model.entitySetByName.get('AccumulationRegister_Stock')!
const fn = (name: string) => stock.functions.find((f) => f.name === name)!
const parse = (name: string, parentheses: string, query: Record<string, string> = {}) =>
  parseVirtualTableArguments(stock, fn(name), parseFunctionParameters(parentheses), new Map(Object.entries(query)))
const guid = '0f8fad5b-d9cb-469f-a165-70867728950e'

t.test('values in the parentheses and in the query string', async (t) => {
  const args = parse(
    'Turnovers',
    "StartPeriod=datetime'2024-01-01T00:00:00',EndPeriod=2024-12-31T23:59:59Z,Periodicity='Month',Dimensions='Warehouse,Product_Key'",
  )
  t.equal(args.startPeriod, '2024-01-01 00:00:00')
  t.equal(args.endPeriod, '2024-12-31 23:59:59')
  t.equal(args.periodicity, 'Month')
  t.same(args.dimensions, ['Warehouse_Key', 'Product_Key'])
  const fromQuery = parse('Balance', '', { Period: "datetime'2024-06-01T00:00:00+03:00'", token: 'ignored' })
  t.equal(fromQuery.period, '2024-05-31 21:00:00', 'offsets are converted to UTC')
})

t.test('Condition: nested quotes doubled or left single give the same condition', async (t) => {
  const doubled = parse('Balance', `Condition='Warehouse_Key eq guid''${guid}'' and Quantity gt 1'`)
  const single = parse('Balance', `Condition='Warehouse_Key eq guid'${guid}' and Quantity gt 1'`)
  t.equal(doubled.conditions.get('Condition'), `Warehouse_Key eq guid'${guid}' and Quantity gt 1`)
  t.equal(single.conditions.get('Condition'), doubled.conditions.get('Condition'))
})

t.test('refusals name the parameter', async (t) => {
  const cases: [string, string, Record<string, string>, string][] = [
    ['Balance', 'Colour=1', {}, 'Colour'],
    ['Balance', "StartPeriod=datetime'2024-01-01T00:00:00'", {}, 'StartPeriod'],
    ['Balance', "Period=datetime'2024-13-01T00:00:00'", {}, 'Period'],
    ['Balance', "Period=datetime'2024-01-01T00:00:00'", { Period: "datetime'2024-01-01T00:00:00'" }, 'Period'],
    ['Turnovers', "Periodicity='month'", {}, 'Periodicity'],
    ['Turnovers', "Periodicity='Fortnight'", {}, 'Periodicity'],
    ['Balance', "Dimensions='Warehouse,Colour'", {}, 'Dimensions'],
    ['Balance', "Dimensions='Quantity'", {}, 'Dimensions'],
    ['Turnovers', "StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-01-01T00:00:00'", {}, 'StartPeriod'],
    ['Balance', 'Condition=Warehouse_Key', {}, 'Condition'],
  ]
  for (const [name, parentheses, query, target] of cases) {
    try {
      parse(name, parentheses, query)
      t.fail(`${name}(${parentheses}) should be refused`)
    } catch (error) {
      t.ok(error instanceof ODataError && error.code === 'InvalidParameter' && error.status === 400, `${name}(${parentheses})`)
      t.equal((error as ODataError).target, target)
    }
  }
  try {
    parseFunctionParameters("Period=datetime'2024-01-01T00:00:00',Period=datetime'2024-01-02T00:00:00'")
    t.fail('a duplicate should be refused')
  } catch (error) {
    t.equal((error as ODataError).code, 'InvalidParameter')
  }
  t.throws(() => parseFunctionParameters("datetime'2024-01-01T00:00:00'"), { code: 'InvalidParameter' }, 'unnamed')
})
