// The virtual tables computed in plain TypeScript from the movements (or records), the reference the
// property test holds the service to. Written from decisions.md §6 and the modules' headers, not from the
// SQL: no totals, no sides, no windows — filter, key, sum, walk.
//
// Values are integers in thousandths, so sums are exact.
import { PERIOD_KINDS, type Periodicity } from '../../../src/model/virtual-tables.js'
import { periodStart, type PeriodKind } from '../../../src/virtual/period-start.js'

export interface Movement {
  readonly recorder: string
  readonly recorderType: string
  readonly line: number
  readonly period: string
  readonly active: boolean
  /** Undefined for a Turnovers-kind register. */
  readonly recordType?: 'Receipt' | 'Expense'
  /** Dimension values by property name. */
  readonly dimensions: Readonly<Record<string, string>>
  /** Resource values in thousandths, by resource name. */
  readonly resources: Readonly<Record<string, number>>
}

export type Row = Record<string, string | number | null>

export interface Call {
  readonly period?: string
  readonly start?: string
  readonly end?: string
  readonly periodicity?: Periodicity
  /** The group columns (dimension names) the result is grouped by. */
  readonly group: readonly string[]
  readonly condition: (m: Movement) => boolean
}

const isKind = (p: Periodicity): p is PeriodKind => (PERIOD_KINDS as readonly string[]).includes(p)

/** Period columns a periodicity fills, with their value for a movement (clamped to the start). */
export function periodValues(periodicity: Periodicity | undefined, m: Movement, start: string | undefined): Row {
  if (periodicity === undefined) return {}
  const clamp = (value: string) => (start !== undefined && value < start ? start : value)
  const kinds = (list: readonly PeriodKind[]) => Object.fromEntries(list.map((k) => [`${k}Period`, clamp(periodStart(k, m.period))]))
  if (isKind(periodicity)) return kinds([periodicity])
  const byRecorder = { Period: m.period, Recorder: m.recorder, Recorder_Type: m.recorderType }
  if (periodicity === 'Recorder') return byRecorder
  if (periodicity === 'Record') return { ...byRecorder, LineNumber: m.line }
  return { ...byRecorder, LineNumber: m.line, ...kinds(PERIOD_KINDS) }
}

function keyOf(values: Row): string {
  return JSON.stringify(values)
}

const signed = (m: Movement, r: string) => (m.recordType === 'Expense' ? -m.resources[r]! : m.resources[r]!)
const nonZero = (row: Row, names: readonly string[]) => names.some((n) => row[n] !== 0)

export function balance(movements: readonly Movement[], resources: readonly string[], call: Call): Row[] {
  const groups = new Map<string, Row>()
  for (const m of movements) {
    if (!m.active || !call.condition(m) || (call.period !== undefined && !(m.period < call.period))) continue
    const key: Row = Object.fromEntries(call.group.map((d) => [d, m.dimensions[d]!]))
    const id = keyOf(key)
    const row = groups.get(id) ?? { ...key, ...Object.fromEntries(resources.map((r) => [`${r}Balance`, 0])) }
    for (const r of resources) (row[`${r}Balance`] as number) += signed(m, r)
    groups.set(id, row)
  }
  const names = resources.map((r) => `${r}Balance`)
  if (call.group.length === 0) return [groups.values().next().value ?? Object.fromEntries(names.map((n) => [n, 0]))]
  return [...groups.values()].filter((row) => nonZero(row, names))
}

export function turnovers(movements: readonly Movement[], resources: readonly string[], balanceKind: boolean, call: Call): Row[] {
  const names = resources.flatMap((r) => (balanceKind ? [`${r}Receipt`, `${r}Expense`, `${r}Turnover`] : [`${r}Turnover`]))
  const groups = new Map<string, Row>()
  for (const m of inRange(movements, call)) {
    const key: Row = {
      ...periodValues(call.periodicity, m, call.start),
      ...Object.fromEntries(call.group.map((d) => [d, m.dimensions[d]!])),
    }
    const id = keyOf(key)
    const row = groups.get(id) ?? { ...key, ...Object.fromEntries(names.map((n) => [n, 0])) }
    for (const r of resources) {
      if (balanceKind) {
        ;(row[m.recordType === 'Receipt' ? `${r}Receipt` : `${r}Expense`] as number) += m.resources[r]!
        ;(row[`${r}Turnover`] as number) += signed(m, r)
      } else {
        ;(row[`${r}Turnover`] as number) += m.resources[r]!
      }
    }
    groups.set(id, row)
  }
  if (call.group.length === 0 && call.periodicity === undefined)
    return [groups.values().next().value ?? Object.fromEntries(names.map((n) => [n, 0]))]
  return [...groups.values()].filter((row) => nonZero(row, names))
}

function inRange(movements: readonly Movement[], call: Call): Movement[] {
  return movements.filter(
    (m) =>
      m.active &&
      call.condition(m) &&
      (call.start === undefined || m.period >= call.start) &&
      (call.end === undefined || m.period <= call.end),
  )
}

/** The order of periods within a group: by period, then recorder, then line (what the running balance follows). */
function periodOrder(row: Row, periods: readonly string[]): string {
  return periods
    .map((p) => (row[p] === null ? '' : typeof row[p] === 'number' ? String(row[p]).padStart(12, '0') : String(row[p])))
    .join('\u0000')
}

export function balanceAndTurnovers(
  movements: readonly Movement[],
  resources: readonly string[],
  periodColumns: readonly string[],
  call: Call,
): Row[] {
  const groupOf = (m: Movement): Row => Object.fromEntries(call.group.map((d) => [d, m.dimensions[d]!]))
  const openings = new Map<string, { key: Row; values: Record<string, number> }>()
  if (call.start !== undefined) {
    for (const m of movements) {
      if (!m.active || !call.condition(m) || !(m.period < call.start)) continue
      const key = groupOf(m)
      const entry = openings.get(keyOf(key)) ?? { key, values: Object.fromEntries(resources.map((r) => [r, 0])) }
      for (const r of resources) entry.values[r]! += signed(m, r)
      openings.set(keyOf(key), entry)
    }
  }
  // Turnovers per group and period.
  const byGroup = new Map<
    string,
    { key: Row; periods: Map<string, { period: Row; receipt: Record<string, number>; expense: Record<string, number> }> }
  >()
  for (const m of inRange(movements, call)) {
    const key = groupOf(m)
    const group = byGroup.get(keyOf(key)) ?? { key, periods: new Map() }
    const period = periodValues(call.periodicity, m, call.start)
    const entry = group.periods.get(keyOf(period)) ?? {
      period,
      receipt: Object.fromEntries(resources.map((r) => [r, 0])),
      expense: Object.fromEntries(resources.map((r) => [r, 0])),
    }
    for (const r of resources) (m.recordType === 'Receipt' ? entry.receipt : entry.expense)[r]! += m.resources[r]!
    group.periods.set(keyOf(period), entry)
    byGroup.set(keyOf(key), group)
  }
  const rows: Row[] = []
  const valueRow = (opening: Record<string, number>, receipt: Record<string, number>, expense: Record<string, number>): Row =>
    Object.fromEntries(
      resources.flatMap((r) => [
        [`${r}OpeningBalance`, opening[r]!],
        [`${r}Receipt`, receipt[r]!],
        [`${r}Expense`, expense[r]!],
        [`${r}Turnover`, receipt[r]! - expense[r]!],
        [`${r}ClosingBalance`, opening[r]! + receipt[r]! - expense[r]!],
      ]),
    )
  const zero = () => Object.fromEntries(resources.map((r) => [r, 0]))
  const groupIds = new Set([...openings.keys(), ...byGroup.keys()])
  for (const id of groupIds) {
    const key = openings.get(id)?.key ?? byGroup.get(id)!.key
    const opening = { ...(openings.get(id)?.values ?? zero()) }
    const periods = [...(byGroup.get(id)?.periods.values() ?? [])].sort((a, b) =>
      periodOrder(a.period, periodColumns) < periodOrder(b.period, periodColumns) ? -1 : 1,
    )
    if (periodColumns.length === 0) {
      const receipt = zero()
      const expense = zero()
      for (const p of periods) {
        for (const r of resources) {
          receipt[r]! += p.receipt[r]!
          expense[r]! += p.expense[r]!
        }
      }
      rows.push({ ...key, ...valueRow(opening, receipt, expense) })
      continue
    }
    if (periods.length === 0) {
      const empty: Row = { Recorder: '00000000-0000-0000-0000-000000000000', Recorder_Type: '', LineNumber: 0 }
      const first: Row = Object.fromEntries(periodColumns.map((c) => [c, c in empty ? empty[c]! : call.start!]))
      rows.push({ ...first, ...key, ...valueRow(opening, zero(), zero()) })
      continue
    }
    for (const p of periods) {
      rows.push({ ...p.period, ...key, ...valueRow(opening, p.receipt, p.expense) })
      for (const r of resources) opening[r]! += p.receipt[r]! - p.expense[r]!
    }
  }
  const names = resources.flatMap((r) => [`${r}OpeningBalance`, `${r}Receipt`, `${r}Expense`, `${r}ClosingBalance`])
  if (call.group.length === 0 && periodColumns.length === 0) return [rows[0] ?? { ...valueRow(zero(), zero(), zero()) }]
  return rows.filter((row) => nonZero(row, names))
}

export interface PriceRecord {
  readonly period: string
  readonly dimensions: Readonly<Record<string, string>>
  readonly values: Readonly<Record<string, number>>
}

export function slice(
  records: readonly PriceRecord[],
  last: boolean,
  over: readonly string[],
  period: string | undefined,
  condition: (r: PriceRecord) => boolean,
): PriceRecord[] {
  const kept = records.filter((r) => condition(r) && (period === undefined || (last ? r.period <= period : r.period >= period)))
  const chosen = new Map<string, string>()
  for (const r of kept) {
    const id = keyOf(Object.fromEntries(over.map((d) => [d, r.dimensions[d]!])))
    const current = chosen.get(id)
    if (current === undefined || (last ? r.period > current : r.period < current)) chosen.set(id, r.period)
  }
  return kept.filter((r) => chosen.get(keyOf(Object.fromEntries(over.map((d) => [d, r.dimensions[d]!])))) === r.period)
}
