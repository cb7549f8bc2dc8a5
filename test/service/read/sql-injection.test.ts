// SQL injection through every query option of a read: each attempt is answered normally (the text is
// only a value: no rows match it) or refused with 400, never 500; afterwards every table is still there
// and holds what it held. Values with quotes and backslashes are found exactly, which shows they travel
// as parameters.
import t from 'tap'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_sql_injection', { data: 'reads' })
t.teardown(() => service.close())
const pool = service.database.pool
await pool.query(
  "INSERT INTO c_Products (Ref_Key, DataVersion, Code, Description, Article, Unit) VALUES ('90000000-0000-4000-8000-000000000001', '1', '901', 'back\\\\slash', 'x', ''), ('90000000-0000-4000-8000-000000000002', '1', '902', 'quote''s \\\\'' tail', 'x', '')",
)

async function tableCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ['c_Products', 'd_GoodsReceipt', 'd_GoodsReceipt__Goods', 'ar_Stock', 'ir_Settings']) {
    const [rows] = await pool.query(`SELECT COUNT(*) AS n FROM \`${table}\``)
    counts[table] = Number((rows as { n: number }[])[0]!.n)
  }
  return counts
}
const before = await tableCounts()

const ATTEMPTS: readonly string[] = [
  "$filter=Code eq '1'' OR ''1''=''1'",
  "$filter=Code eq '1' OR 1=1 --'",
  "$filter=Description eq ''; DROP TABLE c_Products; --'",
  "$filter=Description eq 'x\\' OR 1=1 -- '",
  "$filter=contains(Description,'%25'' OR ''1''=''1')",
  "$filter=startswith(Description,'\\'); DROP TABLE c_Products; --')",
  '$filter=Code eq 1; DROP TABLE c_Products',
  '$filter=`Code` eq 1',
  '$filter=Code eq 0x31',
  "$filter=Code eq '1' UNION SELECT * FROM mysql.user",
  "$filter=Code in ('1'') OR (''1''=''1')",
  "$filter=Code eq @p&@p='x'' OR 1=1 --'",
  '$filter=Code eq @p&@p=Code) OR (1=1',
  "$filter=Ref_Key eq guid'00000000-0000-0000-0000-000000000000'' OR 1=1 --'",
  '$filter=Goods/any(g: g/Quantity gt 0) OR 1=1',
  '$orderby=Code; DROP TABLE c_Products',
  '$orderby=Code desc, (SELECT 1)',
  '$orderby=Code`',
  '$orderby=1',
  '$select=Code,(SELECT password FROM mysql.user)',
  '$select=Code`',
  '$select=*, 1',
  "$expand=Goods($filter=Product_Key eq '1'' OR ''1''=''1')",
  '$expand=Goods($orderby=LineNumber; DROP TABLE c_Products)',
  '$apply=groupby((Code),aggregate(Code with countdistinct as x FROM c_Products))',
  "$apply=filter(Code eq '1'' OR 1=1 --')",
  '$apply=compute(Code as `x`)',
  '$apply=aggregate($count as N) UNION SELECT 1',
  '$top=1; DROP TABLE c_Products',
  '$top=1 OR 1=1',
  '$skip=0) OR (1=1',
  '$count=true; DROP TABLE c_Products',
  "$format=json';DROP TABLE c_Products",
  '$skiptoken=J09SIDE9MQ',
  '$search=x OR 1=1',
]

t.test('every attempt is answered with 200 or 400, and never changes data', async (t) => {
  for (const attempt of ATTEMPTS) {
    const set = attempt.includes('Goods') ? 'Document_GoodsReceipt' : 'Catalog_Products'
    const response = await service.get(`${set}?${attempt}`)
    t.ok(response.status === 200 || response.status === 400 || response.status === 406, `${attempt}: ${response.status}`)
    if (response.status === 200 && attempt.startsWith('$filter=Code eq'))
      t.same(response.json().value, [], `${attempt}: the text matched nothing`)
    if (response.status !== 200) t.type(response.json().error.code, 'string')
  }
  t.same(await tableCounts(), before, 'every table holds what it held')
})

t.test('quotes and backslashes are values, found exactly', async (t) => {
  t.same(
    (await service.values("Catalog_Products?$filter=Description eq 'back\\slash'&$select=Code")).map((p) => p.Code),
    ['901'],
  )
  t.same(
    (await service.values("Catalog_Products?$filter=Description eq 'quote''s \\'' tail'&$select=Code")).map((p) => p.Code),
    ['902'],
  )
  t.same((await service.values("Catalog_Products?$filter=contains(Description,'\\')&$select=Code")).map((p) => p.Code).sort(), [
    '901',
    '902',
  ])
  t.same(
    (await service.values("Catalog_Products?$filter=endswith(Description,'\\'' tail')&$select=Code")).map((p) => p.Code),
    ['902'],
  )
})
