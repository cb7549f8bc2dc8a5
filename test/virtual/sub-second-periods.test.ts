// Bounds with a fraction of a second (decisions.md §6, docs/hardening.md): periods are stored to the second,
// and each bound selects what its comparison selects against the exact instant. A receipt at 14:00:00 is
// before 14:00:00.5 (so in the balance at that instant, and in turnovers ending then) and not at or after it.
import t from 'tap'
import { documentBody, fixtures } from '../service/writes/write-helpers.js'
import { startTestService } from '../support/test-service.js'

const client = await startTestService('virtual_sub_second', { data: 'demo' })
t.teardown(() => client.close())
const f = await fixtures(client.database.pool)
const QUANTITY = 7

const created = await client.send(
  'POST',
  'Document_GoodsReceipt',
  documentBody(f, { rows: 1, quantity: QUANTITY, date: '2031-05-05T14:00:00Z' }),
)
if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`)
const posted = await client.send('POST', `Document_GoodsReceipt(${created.json().Ref_Key})/Post`)
if (posted.status !== 204) throw new Error(`post: ${posted.status} ${posted.text}`)

async function total(call: string, column: string): Promise<number> {
  const answer = await client.send('GET', `AccumulationRegister_Stock/${call}?$select=${column}`)
  if (answer.status !== 200) throw new Error(`${call}: ${answer.status} ${answer.text}`)
  return (answer.json().value as Record<string, number>[]).reduce((sum, row) => sum + Number(row[column] ?? 0), 0)
}

t.test('Balance: the movement of 14:00:00 is before 14:00:00.5', async (t) => {
  const atSecond = await total(`Balance(Period=datetime'2031-05-05T14:00:00')`, 'QuantityBalance')
  const halfPast = await total(`Balance(Period=datetime'2031-05-05T14:00:00.5')`, 'QuantityBalance')
  const nextSecond = await total(`Balance(Period=datetime'2031-05-05T14:00:01')`, 'QuantityBalance')
  t.equal(halfPast - atSecond, QUANTITY, 'counted at 14:00:00.5')
  t.equal(halfPast, nextSecond)
  t.equal(
    await total(`Balance(Period=datetime'2031-05-05T14:00:00.000')`, 'QuantityBalance'),
    atSecond,
    'a zero fraction is the second itself',
  )
})

t.test('Turnovers: EndPeriod rounds down, StartPeriod up', async (t) => {
  const turnover = (start: string, end: string) =>
    total(`Turnovers(StartPeriod=datetime'${start}',EndPeriod=datetime'${end}')`, 'QuantityTurnover')
  t.equal(await turnover('2031-05-05T13:00:00', '2031-05-05T14:00:00.5'), QUANTITY, 'ending after it')
  t.equal(await turnover('2031-05-05T14:00:00.5', '2031-05-05T15:00:00'), 0, 'starting after it')
  t.equal(await turnover('2031-05-05T13:59:59.5', '2031-05-05T14:00:00.5'), QUANTITY, 'around it')
  t.equal(await turnover('2031-05-05T14:00:00.2', '2031-05-05T14:00:00.7'), 0, 'within one second after it: a range, empty')
})
