// The fixture vocabulary of the wire cases (protocol/README.md): the data set a case names, and the
// values a case asks for by name. Every data set answers to the same names, read from its database:
// `product0`, `product1`, … are its products in the order of Code, and so `warehouseN`, `counterpartyN`,
// `organizationN`; `accountNN` is the key of account NN of the chart of accounts Main; `root` and
// `tokenRoot` are the two service roots as a client addresses them.
import { accountRefKey } from '../../src/model/account-key.js'
import { type DataSet, REFERENCE_ROOT, TOKEN_ROOT, type TestService } from './test-service.js'

/** The data sets a case may name (see `DataSet` in test-service.ts); every case of an area shares one database. */
export const WIRE_DATA_SETS = ['demo', 'reads', 'virtual-tables'] as const satisfies readonly DataSet[]
export type WireDataSet = (typeof WIRE_DATA_SETS)[number]

/** The catalogs whose items are named `<prefix>N`, in the order of Code. */
const NAMED_ITEMS: readonly [prefix: string, table: string][] = [
  ['product', 'c_Products'],
  ['warehouse', 'c_Warehouses'],
  ['counterparty', 'c_Counterparties'],
  ['organization', 'c_Организации'],
]

/** The named values of a running service's data (see the head of this file). */
export async function namedValues(service: TestService): Promise<Record<string, string>> {
  const values: Record<string, string> = {
    root: `http://127.0.0.1:${service.port}${REFERENCE_ROOT}`,
    tokenRoot: `http://127.0.0.1:${service.port}${TOKEN_ROOT}`,
  }
  for (const [prefix, table] of NAMED_ITEMS) {
    const [rows] = (await service.database.pool.query(`SELECT Ref_Key FROM \`${table}\` ORDER BY Code, Ref_Key`)) as unknown as [
      { Ref_Key: string }[],
    ]
    for (const [i, row] of rows.entries()) values[`${prefix}${i}`] = row.Ref_Key
  }
  const [accounts] = (await service.database.pool.query('SELECT Code FROM coa_Main')) as unknown as [{ Code: string }[]]
  for (const { Code } of accounts) values[`account${Code}`] = accountRefKey('Main', Code)
  return values
}
