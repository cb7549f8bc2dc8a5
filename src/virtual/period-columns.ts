// The period columns of turnover results (service.md §4.3, decisions.md §6): which columns a periodicity
// fills, and their values per movement (or per totals month) as SQL. Each `<Kind>Period` value is the
// start of its period, but never earlier than StartPeriod (the first period is clamped).
import { EMPTY_GUID } from '../model/model.js'
import { PERIOD_KINDS, type Periodicity } from '../model/virtual-tables.js'
import { periodStartSql, type PeriodKind } from './period-start.js'
import { column, raw, sql, type Statement } from '../sql/sql-template.js'

/** The movement columns `Recorder` and `Record` fill (and `Auto`, with every `<Kind>Period`). */
const BY_RECORDER = ['Period', 'Recorder', 'Recorder_Type'] as const
const BY_RECORD = [...BY_RECORDER, 'LineNumber'] as const

const isPeriodKind = (periodicity: Periodicity): periodicity is PeriodKind => (PERIOD_KINDS as readonly string[]).includes(periodicity)

/** The result columns a periodicity fills, in key order (they come first in the grouping key). */
export function periodColumnsOf(periodicity: Periodicity | undefined): string[] {
  if (periodicity === undefined) return []
  if (isPeriodKind(periodicity)) return [`${periodicity}Period`]
  if (periodicity === 'Recorder') return [...BY_RECORDER]
  if (periodicity === 'Record') return [...BY_RECORD]
  return [...BY_RECORD, ...PERIOD_KINDS.map((kind) => `${kind}Period`)]
}

/** The movement columns a periodicity fills (a Condition may name them, §4.2 rule 1). */
export function movementColumnsFilledBy(periodicity: Periodicity | undefined): string[] {
  if (periodicity === 'Recorder') return [...BY_RECORDER]
  if (periodicity === 'Record' || periodicity === 'Auto') return [...BY_RECORD]
  return []
}

/** The periodicities whose periods are whole months or unions of them: turnovers of whole months may come from totals. */
export function alignedToMonths(periodicity: Periodicity | undefined): boolean {
  return (
    periodicity === undefined ||
    periodicity === 'Month' ||
    periodicity === 'Quarter' ||
    periodicity === 'HalfYear' ||
    periodicity === 'Year'
  )
}

/** The value of a period column for a row whose period is `periodColumn` (SQL text of a DATETIME or DATE). */
export function periodValue(name: string, periodColumn: string, alias: string, start: string | undefined): Statement {
  if (name.endsWith('Period') && name !== 'Period') {
    const kind = name.slice(0, -'Period'.length) as PeriodKind
    const startOfPeriod = raw(periodStartSql(kind, periodColumn))
    return start === undefined ? sql`CAST(${startOfPeriod} AS DATETIME)` : sql`CAST(GREATEST(${startOfPeriod}, ${start}) AS DATETIME)`
  }
  return column(alias, name)
}

/**
 * The value of a period column in a row that stands for no movement (the opening-only row of
 * BalanceAndTurnovers): the empty values of the reference system — the all-zero GUID for Recorder (as an
 * empty reference is written, decisions.md §3), an empty type, line 0 — and NULL for a date-time, which
 * the caller replaces with the first period.
 */
export function emptyPeriodValue(name: string): Statement {
  if (name === 'Recorder') return raw(`'${EMPTY_GUID}'`)
  if (name === 'Recorder_Type') return raw("''")
  if (name === 'LineNumber') return raw('0')
  return raw('CAST(NULL AS DATETIME)')
}

/** True for the period columns that hold a date-time (all but Recorder, Recorder_Type, LineNumber). */
export function isDateTimePeriodColumn(name: string): boolean {
  return name !== 'Recorder' && name !== 'Recorder_Type' && name !== 'LineNumber'
}
