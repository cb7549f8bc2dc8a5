// The start of the period a moment falls in, per periodicity (service.md §4.3, decisions.md §6): weeks
// start on Monday; ten-day periods are days 1–10, 11–20 and 21 to the end; half-years start in January and
// July. The same rule twice: as SQL for the database to group by, and in TypeScript for the property tests
// that check the database against a plain computation. Both work on the stored form 'YYYY-MM-DD HH:MM:SS'.
import type { PERIOD_KINDS } from '../model/virtual-tables.js'

export type PeriodKind = (typeof PERIOD_KINDS)[number]

const FORMAT = "'%Y-%m-%d %H:%i:%s'"

/** SQL for the start of the period of `column` (a DATETIME expression), as 'YYYY-MM-DD HH:MM:SS' text. */
export function periodStartSql(kind: PeriodKind, column: string): string {
  switch (kind) {
    case 'Second':
      return `DATE_FORMAT(${column}, ${FORMAT})`
    case 'Minute':
      return `DATE_FORMAT(${column}, '%Y-%m-%d %H:%i:00')`
    case 'Hour':
      return `DATE_FORMAT(${column}, '%Y-%m-%d %H:00:00')`
    case 'Day':
      return `DATE_FORMAT(${column}, '%Y-%m-%d 00:00:00')`
    case 'Week':
      return `DATE_FORMAT(DATE_SUB(DATE(${column}), INTERVAL WEEKDAY(${column}) DAY), ${FORMAT})`
    case 'TenDays':
      return `DATE_FORMAT(${column}, CASE WHEN DAY(${column}) <= 10 THEN '%Y-%m-01 00:00:00' WHEN DAY(${column}) <= 20 THEN '%Y-%m-11 00:00:00' ELSE '%Y-%m-21 00:00:00' END)`
    case 'Month':
      return `DATE_FORMAT(${column}, '%Y-%m-01 00:00:00')`
    case 'Quarter':
      return `DATE_FORMAT(MAKEDATE(YEAR(${column}), 1) + INTERVAL (QUARTER(${column}) - 1) QUARTER, ${FORMAT})`
    case 'HalfYear':
      return `DATE_FORMAT(${column}, CASE WHEN MONTH(${column}) <= 6 THEN '%Y-01-01 00:00:00' ELSE '%Y-07-01 00:00:00' END)`
    case 'Year':
      return `DATE_FORMAT(${column}, '%Y-01-01 00:00:00')`
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

function format(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
}

function parse(stored: string): Date {
  return new Date(`${stored.slice(0, 10)}T${stored.slice(11, 19)}Z`)
}

/** The start of the period of a stored date-time, in TypeScript (the reference for the SQL above). */
export function periodStart(kind: PeriodKind, stored: string): string {
  const date = parse(stored)
  const y = date.getUTCFullYear()
  const m = date.getUTCMonth()
  const d = date.getUTCDate()
  switch (kind) {
    case 'Second':
      return stored.slice(0, 19)
    case 'Minute':
      return `${stored.slice(0, 16)}:00`
    case 'Hour':
      return `${stored.slice(0, 13)}:00:00`
    case 'Day':
      return `${stored.slice(0, 10)} 00:00:00`
    case 'Week': {
      const weekday = (date.getUTCDay() + 6) % 7 // Monday = 0
      return format(new Date(Date.UTC(y, m, d - weekday)))
    }
    case 'TenDays':
      return format(new Date(Date.UTC(y, m, d <= 10 ? 1 : d <= 20 ? 11 : 21)))
    case 'Month':
      return format(new Date(Date.UTC(y, m, 1)))
    case 'Quarter':
      return format(new Date(Date.UTC(y, m - (m % 3), 1)))
    case 'HalfYear':
      return format(new Date(Date.UTC(y, m < 6 ? 0 : 6, 1)))
    case 'Year':
      return format(new Date(Date.UTC(y, 0, 1)))
  }
}

/** The start of the period after the one starting at `start` (for walking periods of BalanceAndTurnovers). */
export function nextPeriodStart(kind: PeriodKind, start: string): string {
  const date = parse(start)
  const y = date.getUTCFullYear(),
    m = date.getUTCMonth(),
    d = date.getUTCDate()
  switch (kind) {
    case 'Second':
      return format(new Date(date.getTime() + 1000))
    case 'Minute':
      return format(new Date(date.getTime() + 60_000))
    case 'Hour':
      return format(new Date(date.getTime() + 3_600_000))
    case 'Day':
      return format(new Date(Date.UTC(y, m, d + 1)))
    case 'Week':
      return format(new Date(Date.UTC(y, m, d + 7)))
    case 'TenDays':
      return format(d === 1 ? new Date(Date.UTC(y, m, 11)) : d === 11 ? new Date(Date.UTC(y, m, 21)) : new Date(Date.UTC(y, m + 1, 1)))
    case 'Month':
      return format(new Date(Date.UTC(y, m + 1, 1)))
    case 'Quarter':
      return format(new Date(Date.UTC(y, m + 3, 1)))
    case 'HalfYear':
      return format(new Date(Date.UTC(y, m + 6, 1)))
    case 'Year':
      return format(new Date(Date.UTC(y + 1, 0, 1)))
  }
}

/** The stored date-time `seconds` later (negative: earlier). */
export function addSeconds(stored: string, seconds: number): string {
  return format(new Date(parse(stored).getTime() + seconds * 1000))
}

/** True when a stored date-time is the first instant of its month. */
export function isMonthStart(stored: string): boolean {
  return periodStart('Month', stored) === stored.slice(0, 19)
}
