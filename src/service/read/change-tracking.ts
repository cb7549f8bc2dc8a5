// Which reads change tracking serves, and how a note's key meets a row (docs/change-tracking.md).
//
// Tracked: the sets whose every write notes its rows (src/store/change-record.ts) — catalogs, documents,
// information registers and the movements of accumulation and accounting registers (`…_RecordType`).
// A tracked read may have `$filter`, `$select` and `$format` (table parts come with their document, as in
// any read); with other options (`$orderby`, `$top`, `$skip`, `$count`, `$expand`, `$apply`) the service
// answers as usual and does not apply the preference, as OData 4.01 §11.3 allows.
import type { EntitySetModel, PropertyModel } from '../../model/model.js'
import {
  BoundComparison,
  BoundIn,
  BoundKeyText,
  BoundLiteral,
  BoundLogical,
  BoundProperty,
  type BoundExpression,
  type BoundType,
  type Range,
  type SourceColumn,
} from '../../odata/bind/index.js'
import type { ServiceRequest } from '../service-request.js'

const TRACKED_KINDS = new Set([
  'Catalog',
  'Document',
  'InformationRegister',
  'AccumulationRegisterRecordType',
  'AccountingRegisterRecordType',
])
const TRACKABLE_OPTIONS = new Set(['$filter', '$select', '$format', '$skiptoken', '$deltatoken'])
const PREFERENCE = /(?:^|,)\s*((?:odata\.)?track-changes)\s*(?=$|[,;])/i

export function tracksChanges(set: EntitySetModel): boolean {
  return TRACKED_KINDS.has(set.kind)
}

/** The preference as the client spelled it, when it asked for change tracking. */
export function trackChangesPreference(request: ServiceRequest): string | undefined {
  const prefer = request.headers.get('prefer')
  return prefer === undefined ? undefined : PREFERENCE.exec(prefer)?.[1]
}

/** True when the read's options let a delta follow it. */
export function trackableOptions(request: ServiceRequest): boolean {
  for (const option of request.query.system.keys()) if (!TRACKABLE_OPTIONS.has(option)) return false
  return true
}

/** A key value as text the note and the row agree on: date-times to the second (the columns hold no fraction). */
function keyValueText(property: PropertyModel, value: unknown): string {
  const text = String(value)
  return property.storage.kind === 'datetime' ? text.slice(0, 19) : text
}

/** The text of an entity's key, from a note's values or a row's. */
export function entityKeyText(set: EntitySetModel, values: readonly unknown[]): string {
  return JSON.stringify(set.key.map((property, i) => keyValueText(property, values[i])))
}

function keyLiteral(type: BoundType, text: string): BoundLiteral {
  switch (type) {
    case 'Edm.Int32':
    case 'Edm.Double':
      return BoundLiteral.create(type, Number(text))
    case 'Edm.Boolean':
      return BoundLiteral.create(type, text === '1' || text === 'true')
    default:
      return BoundLiteral.create(type, text)
  }
}

/**
 * The rows with any of these keys (values as texts, in the set's key order).
 *
 * A one-column key is `Ref_Key IN (…)`. A key whose columns are GUIDs, strings and integers (the movements'
 * `Recorder`, `Recorder_Type`, `LineNumber`) is `Recorder IN (…) AND <the row's key text> IN (…)`: the first
 * column's list is the range MariaDB reads (the primary key's prefix), and the key text, one string built
 * from the row's key columns (bound-key-text.ts), is checked against a list the server sorts once and
 * searches by bisection, as bytes, for each row it reads; the range optimizer does not look into it, so the
 * plan stays the first column's list. The grouped form below has the server walk its hundred OR branches
 * for every row it reads: the key text takes about 0.6 of its time (docs/change-tracking.md, "Measured").
 * Other keys (a date-time or a boolean among them) keep the grouped form.
 */
export function keyMatch(root: Range, keyColumns: readonly SourceColumn[], keys: readonly (readonly string[])[]): BoundExpression {
  if (keys.length === 0) return BoundLiteral.FALSE
  if (keyColumns.length > 1 && keyColumns.every((column) => KEY_TEXT_STORAGE.has(column.property.storage.kind)))
    return keyTextMatch(root, keyColumns, keys)
  return groupedKeyMatch(root, keyColumns, keys)
}

/** Key columns whose text in SQL is the note's text of the value (a date-time's or a boolean's need not be). */
const KEY_TEXT_STORAGE = new Set(['guid', 'string', 'enum', 'int'])

function keyTextMatch(root: Range, keyColumns: readonly SourceColumn[], keys: readonly (readonly string[])[]): BoundExpression {
  const properties = keyColumns.map((column) => BoundProperty.create(root, column))
  const leading = [...new Set(keys.map((key) => key[0]!))].sort().map((value) => keyLiteral(keyColumns[0]!.type, value))
  const texts = [...new Set(keys.map((key) => BoundKeyText.of(properties, key)))].map((text) => BoundLiteral.create('Edm.String', text))
  return BoundLogical.all(
    [BoundIn.create(properties[0]!, leading), BoundIn.create(BoundKeyText.create(properties), texts)],
    BoundLiteral.TRUE,
  )
}

/**
 * The rows with any of these keys grouped by all but the last key column:
 * `(Recorder = ? AND Recorder_Type = ? AND LineNumber IN (…)) OR …`. A thousand movements of a
 * hundred recorders are a hundred branches, which MariaDB's range optimizer reads in the time of a read by
 * key; one branch per key took it ten times as long. An integer last column's values that follow one
 * another are a range (`LineNumber >= 1 AND LineNumber <= 12`): the lines of a re-posted document are one
 * range scan instead of a point lookup each (about a third less time for a thousand movements).
 */
function groupedKeyMatch(root: Range, keyColumns: readonly SourceColumn[], keys: readonly (readonly string[])[]): BoundExpression {
  const properties = keyColumns.map((column) => BoundProperty.create(root, column))
  const last = keyColumns.length - 1
  const groups = new Map<string, { prefix: readonly string[]; lasts: string[] }>()
  for (const key of keys) {
    const prefix = key.slice(0, last)
    const name = JSON.stringify(prefix)
    let group = groups.get(name)
    if (!group) groups.set(name, (group = { prefix, lasts: [] }))
    group.lasts.push(key[last]!)
  }
  const lastType = keyColumns[last]!.type
  const lastMatch = (lasts: readonly string[]): BoundExpression => {
    const literal = (value: string) => keyLiteral(lastType, value)
    if (lastType !== 'Edm.Int32' || lasts.length < 2) return BoundIn.create(properties[last]!, lasts.map(literal))
    const numbers = [...new Set(lasts.map(Number))].sort((a, b) => a - b)
    const runs: [number, number][] = []
    for (const n of numbers) {
      const run = runs[runs.length - 1]
      if (run && run[1] + 1 === n) run[1] = n
      else runs.push([n, n])
    }
    const singles = runs.filter(([from, to]) => from === to).map(([from]) => keyLiteral(lastType, String(from)))
    const ranges = runs
      .filter(([from, to]) => from !== to)
      .map(([from, to]) =>
        BoundLogical.all(
          [
            BoundComparison.create('ge', properties[last]!, keyLiteral(lastType, String(from))),
            BoundComparison.create('le', properties[last]!, keyLiteral(lastType, String(to))),
          ],
          BoundLiteral.TRUE,
        ),
      )
    return BoundLogical.any([...ranges, ...(singles.length > 0 ? [BoundIn.create(properties[last]!, singles)] : [])], BoundLiteral.FALSE)
  }
  return BoundLogical.any(
    [...groups.values()].map(({ prefix, lasts }) =>
      BoundLogical.all(
        [
          ...prefix.map((value, i) => BoundComparison.create('eq', properties[i]!, keyLiteral(keyColumns[i]!.type, value))),
          lastMatch(lasts),
        ],
        BoundLiteral.TRUE,
      ),
    ),
    BoundLiteral.FALSE,
  )
}
