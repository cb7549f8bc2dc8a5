// The storage half of the generic poster: a recorder's movements in the register tables, replaced
// whole, with the register totals kept in the same transaction (decisions.md §5: "every write that
// changes movements keeps the totals used by balances in the same transaction").
//
// Replacing the movements of one recorder in a set of registers costs, per transaction:
//   1 statement   which of the registers hold movements of this recorder (one EXISTS per register);
//   per register that does: subtract them from its totals, delete them;
//   per register with new rows: one multi-row INSERT, then add them to its totals.
// A fresh document posted into three registers, two with totals, is therefore 1 + 3 + 2 statements.
//
// The caller holds the recorder's lock (its document row, SELECT … FOR UPDATE), so no other transaction
// changes the same recorder's movements meanwhile; totals rows shared with other recorders are changed
// only by additive upserts, which serialise on their row locks.
import { ODataError } from '../errors.js'
import type { EntitySetModel, PropertyModel, ServiceModel } from '../model/model.js'
import { id, idList, join, rowValues, sql, type Statement } from '../sql/sql-template.js'
import { recordChanges, recordRows } from '../store/change-record.js'
import { deferStatement } from '../store/deferred-statements.js'
import { registerTotals } from '../store/totals.js'
import { isDuplicateKey, type Transaction } from '../store/transaction.js'
import type { RegisterMovements } from './posting-plan.js'

/** A recorder: the document whose movements these are (`Recorder`, `Recorder_Type` of every row). */
export interface Recorder {
  readonly key: string
  /** `StandardODATA.Document_GoodsReceipt` */
  readonly type: string
}

/** Rows per INSERT statement: well under any server's max_allowed_packet for these row sizes. */
const ROWS_PER_INSERT = 2000

/** The register set (`AccumulationRegister_Stock`) a record-type set (`…_RecordType`) lists the rows of. */
export function registerSetOf(model: ServiceModel, recordTypeSet: EntitySetModel): EntitySetModel {
  const source = recordTypeSet.source
  if (source.type !== 'accumulationRegisterRecords' && source.type !== 'accountingRegisterRecords')
    throw new Error(`${recordTypeSet.name} is not a record-type set`)
  return model.entitySetByName.get(source.recordSetSet)!
}

const recorderCondition = (recorder: Recorder) => sql`${id('Recorder')} = ${recorder.key} AND ${id('Recorder_Type')} = ${recorder.type}`

/** Which of the registers hold movements of the recorder, in one round trip. */
async function registersWithMovements(
  transaction: Transaction,
  recordTypeSets: readonly EntitySetModel[],
  recorder: Recorder,
): Promise<EntitySetModel[]> {
  if (recordTypeSets.length === 0) return []
  const probes = recordTypeSets.map(
    (set, i) => sql`EXISTS(SELECT 1 FROM ${id(set.table)} WHERE ${recorderCondition(recorder)}) AS ${id(`r${i}`)}`,
  )
  const [row] = await transaction.arrays(sql`SELECT ${join(probes)}`)
  return recordTypeSets.filter((_, i) => Number(row![i]) === 1)
}

/** `INSERT INTO t (columns) VALUES `, made once per table and column list. */
const insertHeads = new WeakMap<EntitySetModel, WeakMap<readonly PropertyModel[], Statement>>()

function insertHead(register: RegisterMovements): Statement {
  let byColumns = insertHeads.get(register.recordTypeSet)
  if (!byColumns) insertHeads.set(register.recordTypeSet, (byColumns = new WeakMap()))
  let head = byColumns.get(register.columns)
  if (!head) {
    head = sql`INSERT INTO ${id(register.recordTypeSet.table)} (${idList(register.columns.map((c) => c.column))}) VALUES `
    byColumns.set(register.columns, head)
  }
  return head
}

/** Inserts the register's rows with multi-row INSERTs of at most ROWS_PER_INSERT rows, noting each in the change record. */
async function insertRegisterRows(transaction: Transaction, register: RegisterMovements): Promise<void> {
  recordRows(
    transaction,
    register.recordTypeSet.table,
    register.recordTypeSet.key.map((k) => k.column),
    register.columns.map((c) => c.column),
    register.rows,
  )
  const head = insertHead(register)
  const width = register.columns.length
  for (let start = 0; start < register.rows.length; start += ROWS_PER_INSERT) {
    const rows =
      start === 0 && register.rows.length <= ROWS_PER_INSERT ? register.rows : register.rows.slice(start, start + ROWS_PER_INSERT)
    await transaction.run(sql`${head}${rowValues(rows, width)}`)
  }
}

/** Removes the recorder's movements from the given registers, subtracting them from the totals first. */
export async function removeMovements(
  transaction: Transaction,
  model: ServiceModel,
  recordTypeSets: readonly EntitySetModel[],
  recorder: Recorder,
): Promise<void> {
  for (const set of await registersWithMovements(transaction, recordTypeSets, recorder)) {
    const totals = registerTotals(model, registerSetOf(model, set))
    if (totals) {
      const overflow = totalsOverflow(registerSetOf(model, set).name)
      await transaction.run(totals.subtract(recorder.key, recorder.type)).catch((error) => {
        throw overflow(error)
      })
    }
    // The removed lines go to the change record: a delta shows each as removed unless it is written again.
    const keyColumns = set.key.map((k) => k.column)
    const removed = await transaction.arrays(sql`SELECT ${idList(keyColumns)} FROM ${id(set.table)} WHERE ${recorderCondition(recorder)}`)
    recordChanges(transaction, set.table, removed)
    await transaction.run(sql`DELETE FROM ${id(set.table)} WHERE ${recorderCondition(recorder)}`)
  }
}

/** MySQL/MariaDB error numbers of a value that does not fit its column. */
const OUT_OF_RANGE: ReadonlySet<number> = new Set([1264 /* ER_WARN_DATA_OUT_OF_RANGE */, 1690 /* ER_DATA_OUT_OF_RANGE */])

/**
 * What a totals statement's overflow means: the movements are valid one by one, but a total of the register
 * (a balance or a turnover of its period) would pass the digits its totals columns hold. The client's 400,
 * naming the register; the transaction rolls back, so nothing of the posting stays.
 */
function totalsOverflow(register: string): (error: unknown) => unknown {
  return (error) => {
    const errno = (error as { errno?: unknown } | null)?.errno
    if (typeof errno !== 'number' || !OUT_OF_RANGE.has(errno)) return error
    return new ODataError(
      'ValueOutOfRange',
      `The totals of ${register} cannot hold this posting: a balance or turnover would exceed the digits its resources allow`,
    )
  }
}

/**
 * Inserts one register's rows; a key another recorder's movements hold (a document of another type with
 * the same `Ref_Key`) is `409`, naming `whose` key it was.
 */
async function insertOrConflict(transaction: Transaction, model: ServiceModel, register: RegisterMovements, whose: string): Promise<void> {
  try {
    await insertRegisterRows(transaction, register)
  } catch (error) {
    if (isDuplicateKey(error))
      throw new ODataError(
        'Conflict',
        `${registerSetOf(model, register.recordTypeSet).name} holds movements of another recorder with ${whose}`,
      )
    throw error
  }
}

/**
 * Inserts movement rows (arrays in the order of the record-type set's properties, Recorder and
 * Recorder_Type already set) and adds them to the totals. A key taken by another recorder with the same
 * `Ref_Key` (a document of another type) is `409`.
 */
export async function insertMovements(
  transaction: Transaction,
  model: ServiceModel,
  movements: readonly RegisterMovements[],
  recorder: Recorder,
): Promise<void> {
  for (const register of movements) {
    if (register.rows.length === 0) continue
    await insertOrConflict(transaction, model, register, `the key ${recorder.key}`)
    const totals = registerTotals(model, registerSetOf(model, register.recordTypeSet))
    if (totals)
      deferStatement(
        transaction,
        totals.add(recorder.key, recorder.type),
        totalsOverflow(registerSetOf(model, register.recordTypeSet).name),
      )
  }
}

/**
 * Replaces the recorder's movements: those in `clear` are removed (with their totals), then `movements`
 * are written (with theirs). `clear` names every register the recorder may write to, so a register
 * that gets no rows this time loses its old ones too.
 */
export async function replaceMovements(
  transaction: Transaction,
  model: ServiceModel,
  clear: readonly EntitySetModel[],
  movements: readonly RegisterMovements[],
  recorder: Recorder,
): Promise<void> {
  await removeMovements(transaction, model, clear, recorder)
  await insertMovements(transaction, model, movements, recorder)
}

/**
 * Inserts the movements of several recorders of one type that have none yet (documents created in the
 * same transaction), with one multi-row INSERT per register and one totals statement per register.
 */
export async function insertMovementsOfNewRecorders(
  transaction: Transaction,
  model: ServiceModel,
  movements: readonly RegisterMovements[],
  recorderKeys: readonly string[],
  recorderType: string,
): Promise<void> {
  for (const register of movements) {
    if (register.rows.length === 0) continue
    await insertOrConflict(transaction, model, register, 'one of these keys')
    const totals = registerTotals(model, registerSetOf(model, register.recordTypeSet))
    if (totals)
      deferStatement(
        transaction,
        totals.addMany(recorderKeys, recorderType),
        totalsOverflow(registerSetOf(model, register.recordTypeSet).name),
      )
  }
}
