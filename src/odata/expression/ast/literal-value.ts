// Values of the structured literals. They keep the fields as written (after range checks) and do no
// time-zone arithmetic: converting to the store's form is the binder's business (decisions.md §3).

export interface DateValue {
  readonly year: number
  readonly month: number
  readonly day: number
}

export interface TimeOfDayValue {
  readonly hour: number
  readonly minute: number
  readonly second: number
  /** The digits after the decimal point of the seconds, as written; '' when there are none. */
  readonly fraction: string
}

export interface DateTimeOffsetValue extends DateValue, TimeOfDayValue {
  /** Minutes east of UTC; null when the text has no offset (then it is read as UTC, decisions.md §3). */
  readonly offsetMinutes: number | null
}

/** An xsd:dayTimeDuration (ABNF durationValue): days, hours, minutes, seconds. */
export interface DurationValue {
  readonly negative: boolean
  readonly days: number
  readonly hours: number
  readonly minutes: number
  readonly seconds: number
  /** The digits after the decimal point of the seconds, as written; '' when there are none. */
  readonly fraction: string
}

/** ABNF enumLiteral: `Namespace.Type'Member1,Member2'` or, with the type left out, `'Member'`. */
export interface EnumValue {
  readonly typeName: string | null
  /** The text between the quotes: member names or integers, comma-separated. */
  readonly members: string
}
