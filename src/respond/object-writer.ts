// One row (an array in SELECT order) → one JSON object, for reads whose columns are chosen per request:
// `$select`ed properties at known positions of the row (the row also holds hidden columns: keys for
// paging and for `$expand`), nested objects for grouped paths of `$apply` (`Product/Description` →
// `"Product":{"Description":…}`), and pieces appended by expansions. Names and value writers are fixed
// once per request; writing a row is one pass of string concatenation.
import type { PropertyModel } from '../model/model.js'
import { jsonValueWriter, type JsonFormatOptions, type JsonValueWriter } from './json-value.js'

export interface OutputField {
  /** The JSON name; `a/b` nests `b` inside an object `a`. */
  readonly name: string
  /** The position of the value in the row. */
  readonly index: number
  readonly write: JsonValueWriter
}

export function outputField(name: string, index: number, property: PropertyModel, format: JsonFormatOptions): OutputField {
  return { name, index, write: jsonValueWriter(property, format) }
}

/** Writes the members of one object, without the braces: `"A":1,"B":"x"` (and nested objects). */
export type MembersWriter = (row: readonly unknown[]) => string

export function createMembersWriter(fields: readonly OutputField[]): MembersWriter {
  if (fields.every((f) => !f.name.includes('/'))) return flatMembers(fields)
  // Group by the first path segment, keeping the order in which each group first appears.
  const order: string[] = []
  const groups = new Map<string, OutputField[]>()
  for (const field of fields) {
    const slash = field.name.indexOf('/')
    const head = slash < 0 ? field.name : field.name.slice(0, slash)
    if (!groups.has(head)) {
      order.push(head)
      groups.set(head, [])
    }
    groups.get(head)!.push(slash < 0 ? field : { ...field, name: field.name.slice(slash + 1) })
  }
  const parts = order.map((head, i) => {
    const members = groups.get(head)!
    const prefix = `${i === 0 ? '' : ','}${JSON.stringify(head)}:`
    if (members.length === 1 && members[0]!.name === head) {
      const field = members[0]!
      return (row: readonly unknown[]) => prefix + field.write(row[field.index])
    }
    const nested = createMembersWriter(members)
    return (row: readonly unknown[]) => `${prefix}{${nested(row)}}`
  })
  return (row) => {
    let text = ''
    for (let i = 0; i < parts.length; i++) text += parts[i]!(row)
    return text
  }
}

function flatMembers(fields: readonly OutputField[]): MembersWriter {
  const names = fields.map((f, i) => `${i === 0 ? '' : ','}${JSON.stringify(f.name)}:`)
  const writers = fields.map((f) => f.write)
  const indexes = fields.map((f) => f.index)
  const n = fields.length
  return (row) => {
    let text = ''
    for (let i = 0; i < n; i++) text += names[i]! + writers[i]!(row[indexes[i]!])
    return text
  }
}

/** `{` members, then the pieces (each already `"Name":…`), `}`. */
export function joinObject(members: string, pieces: readonly string[]): string {
  let text = `{${members}`
  for (const piece of pieces) text += (text.length === 1 ? '' : ',') + piece
  return `${text}}`
}
