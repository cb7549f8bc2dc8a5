// Which implementation serves a function of a register (service.md §4.2): slices for periodic
// information registers, Balance / Turnovers / BalanceAndTurnovers for accumulation registers (the model
// declares Balance and BalanceAndTurnovers only for the Balance kind). Accounting registers' functions
// come in a later issue: for them (and anything else) there is none, and the call answers 501.
import type { EntitySetModel } from '../model/model.js'
import type { VirtualTableName } from '../model/virtual-tables.js'
import { balanceAndTurnovers } from './balance-and-turnovers.js'
import { balance } from './balance.js'
import { sliceFirst } from './slice-first.js'
import { sliceLast } from './slice-last.js'
import { turnovers } from './turnovers.js'
import type { VirtualTable } from './virtual-table.js'

const BY_REGISTER_TYPE: Readonly<Record<string, Partial<Record<VirtualTableName, VirtualTable>>>> = {
  informationRegister: { SliceLast: sliceLast, SliceFirst: sliceFirst },
  accumulationRegister: { Balance: balance, Turnovers: turnovers, BalanceAndTurnovers: balanceAndTurnovers },
}

/** Every implementation, for the tests that check each against one case table. */
export const VIRTUAL_TABLES: readonly VirtualTable[] = [sliceLast, sliceFirst, balance, turnovers, balanceAndTurnovers]

export function virtualTableFor(register: EntitySetModel, name: VirtualTableName): VirtualTable | undefined {
  return BY_REGISTER_TYPE[register.source.type]?.[name]
}
