// One wire case is one file under protocol/<area>/ (format and how to add one: protocol/README.md). This
// reads an area's files, checks their shape (a misspelt field fails the load rather than being skipped),
// and gives every case as a list of steps: a file with one `request`/`expect` is a case of one step.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { WIRE_DATA_SETS, type WireDataSet } from './wire-data.js'
import { WIRE_FIXTURES, type WireFixture } from './wire-given.js'

export const PROTOCOL_DIRECTORY = 'protocol'

export interface WireRequest {
  readonly method: string
  /** Below the service root, exactly as it goes on the wire. */
  readonly path: string
  /** `reference` (HTTP Basic demo:demo, the default) or `token` (`/api/v4/`, Bearer demo-token). */
  readonly root?: 'reference' | 'token'
  readonly headers?: Record<string, string>
  /** Sent as JSON (with Content-Type: application/json unless the case names another). */
  readonly body?: unknown
  /** Sent verbatim. */
  readonly bodyText?: string
}

export interface WireExpect {
  readonly status: number
  /** Names case-insensitive; a value is the exact text or `{ "match": "<regex>" }`. */
  readonly headers?: Record<string, unknown>
  readonly absentHeaders?: readonly string[]
  /** The whole JSON body. */
  readonly body?: unknown
  /** These fields of the JSON body (arrays: same length, item by item). */
  readonly bodyHas?: unknown
  /** These fields of the body's `error` (code, target, message as a pattern). */
  readonly error?: Record<string, unknown>
  /** The exact text of the body (`""`: no body). */
  readonly text?: string
  /** The statuses of a `$batch` answer, in order; a nested list is a change set or atomicity group. */
  readonly batch?: { readonly parts: readonly unknown[]; readonly codes?: Record<string, string>; readonly contentIds?: readonly string[] }
}

export interface DatabaseCheck {
  readonly sql: string
  readonly params?: readonly unknown[]
  readonly rows: readonly Record<string, unknown>[]
}

export interface WireStep {
  readonly name: string
  readonly request: WireRequest
  readonly expect: WireExpect
  /** Variables for the later steps: `body.<field>` or `headers.<name>` of this step's answer. */
  readonly save?: Record<string, string>
  readonly database?: readonly DatabaseCheck[]
}

export interface WireCase {
  /** The file below protocol/, e.g. `reads/paging/a-forged-token.json`. */
  readonly file: string
  readonly description: string
  readonly data: WireDataSet
  /** Named fixtures made fresh for this case: variable name → fixture (wire-given.ts). */
  readonly given: Record<string, WireFixture>
  readonly steps: readonly WireStep[]
}

const CASE_FIELDS = ['description', 'data', 'given', 'request', 'expect', 'save', 'database', 'steps']
const STEP_FIELDS = ['name', 'request', 'expect', 'save', 'database']
const REQUEST_FIELDS = ['method', 'path', 'root', 'headers', 'body', 'bodyText']
const EXPECT_FIELDS = ['status', 'headers', 'absentHeaders', 'body', 'bodyHas', 'error', 'text', 'batch']

function jsonFiles(directory: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(directory).sort()) {
    const path = join(directory, entry)
    if (statSync(path).isDirectory()) files.push(...jsonFiles(path))
    else if (entry.endsWith('.json')) files.push(path)
  }
  return files
}

function onlyFields(value: unknown, fields: readonly string[], where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where}: not an object`)
  const unknown = Object.keys(value).filter((key) => !fields.includes(key))
  if (unknown.length > 0) throw new Error(`${where}: unknown field ${unknown.join(', ')} (protocol/README.md lists the fields)`)
  return value as Record<string, unknown>
}

function checkStep(step: unknown, where: string): WireStep {
  const fields = onlyFields(step, STEP_FIELDS, where)
  const request = onlyFields(fields.request, REQUEST_FIELDS, `${where}: request`)
  const expect = onlyFields(fields.expect, EXPECT_FIELDS, `${where}: expect`)
  if (typeof request.method !== 'string' || typeof request.path !== 'string') throw new Error(`${where}: request needs method and path`)
  if (request.root !== undefined && request.root !== 'reference' && request.root !== 'token')
    throw new Error(`${where}: root is reference or token`)
  if (request.body !== undefined && request.bodyText !== undefined) throw new Error(`${where}: body or bodyText, not both`)
  if (typeof expect.status !== 'number') throw new Error(`${where}: expect needs status`)
  if (expect.body !== undefined && expect.bodyHas !== undefined) throw new Error(`${where}: body (whole) or bodyHas (fields), not both`)
  return fields as unknown as WireStep
}

/** Every case of an area (protocol/<area>/**.json), sorted by file; `base` is another protocol folder. */
export function loadWireCases(area: string, base = PROTOCOL_DIRECTORY): WireCase[] {
  const directory = join(base, area)
  return jsonFiles(directory).map((path) => {
    const file = relative(base, path)
    const fields = onlyFields(JSON.parse(readFileSync(path, 'utf8')), CASE_FIELDS, file)
    if (typeof fields.description !== 'string') throw new Error(`${file}: description missing`)
    if (!WIRE_DATA_SETS.includes(fields.data as WireDataSet)) throw new Error(`${file}: data is one of ${WIRE_DATA_SETS.join(', ')}`)
    const given = (fields.given ?? {}) as Record<string, WireFixture>
    if (typeof given !== 'object' || Array.isArray(given)) throw new Error(`${file}: given maps a variable name to a fixture`)
    for (const [name, fixture] of Object.entries(given)) {
      if (!/^\w+$/.test(name)) throw new Error(`${file}: given ${name}: a variable name is letters, digits and _`)
      if (!WIRE_FIXTURES.includes(fixture)) throw new Error(`${file}: given ${name}: ${fixture} is none of ${WIRE_FIXTURES.join(', ')}`)
    }
    let steps: WireStep[]
    if (fields.steps !== undefined) {
      if (fields.request !== undefined || fields.expect !== undefined || fields.save !== undefined || fields.database !== undefined)
        throw new Error(`${file}: steps, or one request/expect, not both`)
      if (!Array.isArray(fields.steps) || fields.steps.length === 0) throw new Error(`${file}: steps is a non-empty list`)
      steps = fields.steps.map((step, i) => checkStep(step, `${file} step ${i + 1}`))
      steps.forEach((step, i) => {
        if (typeof step.name !== 'string') throw new Error(`${file} step ${i + 1}: name missing`)
      })
    } else {
      const { description, data: _data, given: _given, steps: _steps, ...step } = fields
      steps = [checkStep({ name: description, ...step }, file)]
    }
    return { file, description: fields.description, data: fields.data as WireDataSet, given, steps }
  })
}

/**
 * `${name}` in every string of a value (object keys too), each name given by `lookup`. One syntax for
 * every area: named values of the data set, the roots, and what earlier steps saved.
 */
export function substitute(value: unknown, lookup: (name: string) => string): unknown {
  if (typeof value === 'string') return value.replace(/\$\{(\w+)\}/g, (_, name: string) => lookup(name))
  if (Array.isArray(value)) return value.map((item) => substitute(item, lookup))
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [substitute(k, lookup), substitute(v, lookup)]))
  return value
}
