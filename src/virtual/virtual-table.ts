// The function layer: every virtual table (service.md §4.2) is one implementation of `VirtualTable`, in a
// file of its own, chosen by register kind and function name in virtual-table-registry.ts. An
// implementation says which result columns a call fills and returns the SQL of its rows (a derived
// relation whose columns are named after the result properties); everything else is shared:
//
//   arguments (virtual-table-arguments.ts) → the columns a call fills and its grouping (grouping.ts,
//   rule 3; 400 NotFilledInResult for other columns) → the Condition bound against the records
//   (condition.ts) → VirtualTable.relation → a QueryableSource with a `derived` relation
//   (result-source.ts) → the read pipeline, as for any collection: $filter, $orderby, $select, $expand,
//   $apply, $top, $skip, $count, paging and streaming apply to the result (src/service/read-virtual-table.ts).
//
// Accounting registers have theirs (accounting-*.ts): the account, extra dimensions and dimensions are
// their groupable columns, AccountCondition selects accounts of the chart, and their totals
// (acr_<Name>__totals) play the part ar_<Name>__totals plays for accumulation registers.
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import type { VirtualTableName, VirtualTableSignature } from '../model/virtual-tables.js'
import type { SqlRunner } from './sql-runner.js'
import type { ConditionContext, RecordCondition } from './condition.js'
import type { RegisterTables } from './register-tables.js'
import type { Statement } from '../sql/sql-template.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'

/** Everything an implementation needs to make the rows of one call. */
export interface VirtualTableCall {
  readonly model: ServiceModel
  /** The set the function is bound to (`AccumulationRegister_Stock`, `InformationRegister_Prices`). */
  readonly register: EntitySetModel
  readonly tables: RegisterTables
  readonly signature: VirtualTableSignature
  readonly arguments: VirtualTableArguments
  /** The period columns the call fills (§4.3), in key order; they come first in the grouping key. */
  readonly periodColumns: readonly string[]
  /** The columns rows are grouped by after the period columns (rule 3), in the register's order. */
  readonly groupColumns: readonly string[]
  /** The value columns the rows carry (aggregates of a balance or turnover, or a record's own values). */
  readonly valueColumns: readonly string[]
  /** The Condition parameter, bound against the records; undefined when there is none. */
  readonly condition: RecordCondition | undefined
  /** How expressions of the call's parameters bind (AccountCondition binds like Condition). */
  readonly context: ConditionContext
}

export interface VirtualTable {
  readonly name: VirtualTableName
  /**
   * True when rows are groups (balances and turnovers: grouped by the rules of §4.2 rule 3); false when
   * they are records (slices: one register record per dimension combination).
   */
  readonly grouped: boolean
  /** The result columns that can form groups (the register's dimensions), in key order. */
  groupableColumns(tables: RegisterTables, args: VirtualTableArguments): readonly string[]
  /** The period columns a call with these arguments fills (§4.3), in key order. */
  periodColumns(args: VirtualTableArguments): readonly string[]
  /** Record columns a Condition may name besides the groupable ones (§4.2 rule 1: only what the function fills). */
  conditionColumns(args: VirtualTableArguments, tables: RegisterTables): readonly string[]
  /** The rows of a call: SQL whose columns are the period, group and value columns, named as in the result type. */
  relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement>
  /** Checks of the arguments the shared parser cannot make (400 InvalidParameter). */
  checkArguments?(args: VirtualTableArguments, tables: RegisterTables): void
  /** Binds the Condition when the records it reads are not the register's record set as stored. */
  bindCondition?(
    text: string,
    args: VirtualTableArguments,
    tables: RegisterTables,
    context: ConditionContext,
    signature: VirtualTableSignature,
  ): RecordCondition
  /** The grouping completed with what the chosen columns imply (a value's type column goes with it). */
  completeGrouping?(columns: readonly string[], args: VirtualTableArguments, tables: RegisterTables): readonly string[]
  /** The row key of an ungrouped result (default: the register's key). */
  rowKey?(call: VirtualTableCall): readonly string[]
}
