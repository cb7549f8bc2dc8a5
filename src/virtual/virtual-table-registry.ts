// Which implementation serves a function of a register (service.md §4.2): slices for periodic
// information registers, Balance / Turnovers / BalanceAndTurnovers for accumulation registers (the model
// declares Balance and BalanceAndTurnovers only for the Balance kind), and the five functions of
// accounting registers. For anything else there is none, and the call answers 501.
import type { EntitySetModel } from '../model/model.js'
import type { VirtualTableName } from '../model/virtual-tables.js'
import { balanceAndTurnovers } from './balance-and-turnovers.js'
import { balance } from './balance.js'
import { sliceFirst } from './slice-first.js'
import { sliceLast } from './slice-last.js'
import { turnovers } from './turnovers.js'
import type { VirtualTable } from './virtual-table.js'
import { accountingBalance } from './accounting-balance.js'
import { accountingBalanceAndTurnovers } from './accounting-balance-and-turnovers.js'
import { accountingTurnovers } from './accounting-turnovers.js'
import { extDimensions } from './ext-dimensions.js'
import { recordsWithExtDimensions } from './records-with-ext-dimensions.js'

const BY_REGISTER_TYPE: Readonly<Record<string, Partial<Record<VirtualTableName, VirtualTable>>>> = {
  informationRegister: { SliceLast: sliceLast, SliceFirst: sliceFirst },
  accumulationRegister: { Balance: balance, Turnovers: turnovers, BalanceAndTurnovers: balanceAndTurnovers },
  accountingRegister: {
    Balance: accountingBalance,
    Turnovers: accountingTurnovers,
    BalanceAndTurnovers: accountingBalanceAndTurnovers,
    ExtDimensions: extDimensions,
    RecordsWithExtDimensions: recordsWithExtDimensions,
  },
}

/** Every implementation, for the tests that check each against one case table. */
export const VIRTUAL_TABLES: readonly VirtualTable[] = [
  sliceLast,
  sliceFirst,
  balance,
  turnovers,
  balanceAndTurnovers,
  accountingBalance,
  accountingTurnovers,
  accountingBalanceAndTurnovers,
  extDimensions,
  recordsWithExtDimensions,
]

export function virtualTableFor(register: EntitySetModel, name: VirtualTableName): VirtualTable | undefined {
  return BY_REGISTER_TYPE[register.source.type]?.[name]
}
