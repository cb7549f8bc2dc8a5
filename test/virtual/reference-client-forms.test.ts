// Forms 1C:Enterprise's own documentation uses, as a client written against its `standard.odata` sends
// them, taken unchanged by the reference flavour (docs/hardening.md): `/Post()` and `/Unpost()` with
// parentheses, an AccountCondition over `Account_Key`, a virtual table without parentheses with its
// parameters in the query string. The token flavour keeps OData's own grammar.
import t from 'tap'
import { TOKEN_ROOT, startTestService } from '../support/test-service.js'
import { count, documentBody, fixtures, rows } from '../service/writes/write-helpers.js'

const client = await startTestService('virtual_reference_client_forms', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(pool)

t.test("Post() and Unpost() with parentheses, as 1C's client sends them", async (t) => {
  const created = await client.send('POST', 'Document_GoodsReceipt', documentBody(f))
  const key = created.json().Ref_Key as string
  const posted = () => count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt WHERE Ref_Key = ? AND Posted = 1', [key])
  t.equal((await client.send('POST', `Document_GoodsReceipt(guid'${key}')/Post()`)).status, 204)
  t.equal(await posted(), 1, 'posted')
  t.ok((await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [key])) > 0, 'movements written')
  t.equal((await client.send('POST', `Document_GoodsReceipt(guid'${key}')/Unpost()`)).status, 204)
  t.equal(await posted(), 0, 'unposted')
  t.equal((await client.send('POST', `Document_GoodsReceipt(guid'${key}')/StandardODATA.Post()`)).status, 204, 'qualified too')
  const token = await client.request('POST', `${TOKEN_ROOT}Document_GoodsReceipt(guid'${key}')/Post()`, {
    headers: { Authorization: 'Bearer demo-token' },
  })
  t.equal(token.status, 404, 'the token flavour keeps the OData form')
  t.equal(
    (await client.send('POST', `Document_GoodsReceipt(guid'${key}')/Post(PostingModeOperational=true)`)).status,
    404,
    'parameters go in the body',
  )
})

t.test("AccountCondition='Account_Key eq guid''…''' selects the account, as Code does", async (t) => {
  const [account] = await rows<{ Ref_Key: string }>(pool, "SELECT Ref_Key FROM coa_Main WHERE Code = '41'")
  const balance = async (condition: string) => {
    const answer = await client.send(
      'GET',
      `AccountingRegister_Main/Balance(AccountCondition='${condition.replaceAll(' ', '%20')}')?$select=Account_Key,AmountBalance&$orderby=AmountBalance`,
    )
    t.equal(answer.status, 200, condition)
    return answer.json().value
  }
  const byKey = await balance(`Account_Key eq guid''${account!.Ref_Key}''`)
  t.ok(byKey.length > 0, 'the account has a balance')
  t.same(byKey, await balance("Code eq ''41''"))
  t.ok(byKey.every((row: { Account_Key: string }) => row.Account_Key === account!.Ref_Key))
})

t.test('SliceLast?Period=… without parentheses', async (t) => {
  const period = "datetime'2024-03-01T00:00:00'"
  const bare = await client.send('GET', `InformationRegister_Prices/SliceLast?Period=${period}`)
  t.equal(bare.status, 200)
  const called = await client.send('GET', `InformationRegister_Prices/SliceLast(Period=${period})`)
  t.same(bare.json().value, called.json().value)
  t.ok(bare.json().value.length > 0)
  t.equal((await client.send('GET', `AccumulationRegister_Stock/Balance?Period=${period}`)).status, 200, 'any virtual table')
  const token = await client.request('GET', `${TOKEN_ROOT}InformationRegister_Prices/SliceLast?Period=${period}`, {
    headers: { Authorization: 'Bearer demo-token' },
  })
  t.equal(token.status, 400, 'the token flavour keeps the OData form')
})
