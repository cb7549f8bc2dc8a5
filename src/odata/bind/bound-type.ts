// The types a bound expression can have. They are the Edm primitive types the service can evaluate in
// SQL, plus 'Null' for the untyped null literal. Enumeration-stored properties (Recorder_Type, RecordType)
// are Edm.String to a client and compare as strings (the compiler takes care of MySQL's ENUM ordering).

export type BoundType =
  | 'Edm.String'
  | 'Edm.Guid'
  | 'Edm.Boolean'
  | 'Edm.Int32'
  | 'Edm.Int64'
  | 'Edm.Decimal'
  | 'Edm.Double'
  | 'Edm.DateTimeOffset'
  | 'Edm.Date'
  | 'Edm.TimeOfDay'
  | 'Edm.Duration'
  | 'Null'

const NUMERIC_RANK: Readonly<Partial<Record<BoundType, number>>> = { 'Edm.Int32': 1, 'Edm.Int64': 2, 'Edm.Decimal': 3, 'Edm.Double': 4 }

export function isNumeric(type: BoundType): boolean {
  return NUMERIC_RANK[type] !== undefined
}

export function isInteger(type: BoundType): boolean {
  return type === 'Edm.Int32' || type === 'Edm.Int64'
}

/** The type of an arithmetic result (URL Conventions 5.1.1.2: operands are promoted to the wider type). */
export function promoteNumeric(left: BoundType, right: BoundType): BoundType {
  if (left === 'Null') return right
  if (right === 'Null') return left
  return (NUMERIC_RANK[left] ?? 0) >= (NUMERIC_RANK[right] ?? 0) ? left : right
}

/**
 * Whether two values may be compared (eq, ne, gt, ge, lt, le, in). Numbers compare with numbers; a
 * date-time compares with a date (the date is read as its midnight, UTC); null compares with anything.
 */
export function comparable(left: BoundType, right: BoundType): boolean {
  if (left === 'Null' || right === 'Null' || left === right) return true
  if (isNumeric(left) && isNumeric(right)) return true
  const temporal = new Set<BoundType>(['Edm.DateTimeOffset', 'Edm.Date'])
  return temporal.has(left) && temporal.has(right)
}
