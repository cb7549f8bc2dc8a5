// Replays the wire cases of protocol/writes/*.json against a running service, step by step, and checks
// status, headers, selected body fields, error code and target, and the database effects each step
// names. The format is described in protocol/writes/README.md.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { accountRefKey } from '../../src/posting/account-key.js'
import { fixtures, rows, startWriteService } from './write-helpers.js'

interface Matcher {
  readonly match: string
}
type Expected = unknown

interface Step {
  readonly name: string
  readonly request: { method: string; path: string; root?: 'reference' | 'token'; headers?: Record<string, string>; body?: unknown; bodyText?: string }
  readonly expect: { status: number; headers?: Record<string, Expected>; absentHeaders?: string[]; body?: Expected; error?: { code: string; target?: string }; emptyBody?: boolean }
  readonly save?: Record<string, string>
  readonly database?: { sql: string; params?: unknown[]; rows: Record<string, unknown>[] }[]
}

interface ProtocolCase {
  readonly description: string
  readonly steps: Step[]
}

const directory = 'protocol/writes'
const files = readdirSync(directory).filter((f) => f.endsWith('.json')).sort()
const client = await startWriteService('writes_protocol')
t.teardown(() => client.service.close())
const f = await fixtures(client.pool)

const globals: Record<string, string> = {
  root: `http://127.0.0.1:${client.service.port}/odata/standard.odata/v4/`,
  tokenRoot: `http://127.0.0.1:${client.service.port}/api/v4/`,
  ...Object.fromEntries(f.warehouses.slice(0, 3).map((k, i) => [`warehouse${i}`, k])),
  ...Object.fromEntries(f.products.slice(0, 3).map((k, i) => [`product${i}`, k])),
  ...Object.fromEntries(f.counterparties.slice(0, 3).map((k, i) => [`counterparty${i}`, k])),
  ...Object.fromEntries(f.organizations.slice(0, 2).map((k, i) => [`organization${i}`, k])),
  ...Object.fromEntries(['41', '51', '60', '62', '90'].map((code) => [`account${code}`, accountRefKey('Main', code)])),
}

/** `${name}` in every string of a JSON value; a string that is one whole `${name}` keeps the variable's value. */
function substitute(value: unknown, variables: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{(\w+)\}/g, (_, name: string) => {
      if (!(name in variables)) throw new Error(`unknown variable \${${name}}`)
      return variables[name]!
    })
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, variables))
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [substitute(k, variables), substitute(v, variables)]))
  return value
}

const isMatcher = (value: unknown): value is Matcher => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as Matcher).match === 'string'

/**
 * Partial deep comparison: every field the case names must be there and equal (arrays: same length, item
 * by item). `loose` (database rows) lets a number equal its text, as the driver delivers BIGINT and COUNT(*).
 */
function compare(actual: unknown, expected: unknown, path: string, problems: string[], loose = false): void {
  if (isMatcher(expected)) {
    if (typeof actual !== 'string' || !new RegExp(expected.match).test(actual)) problems.push(`${path}: ${JSON.stringify(actual)} does not match /${expected.match}/`)
    return
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return void problems.push(`${path}: expected an array of ${expected.length}, got ${JSON.stringify(actual)?.slice(0, 200)}`)
    expected.forEach((item, i) => compare(actual[i], item, `${path}[${i}]`, problems, loose))
    return
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return void problems.push(`${path}: expected an object, got ${JSON.stringify(actual)}`)
    for (const [key, value] of Object.entries(expected)) compare((actual as Record<string, unknown>)[key], value, `${path}.${key}`, problems, loose)
    return
  }
  if (loose && typeof expected === 'number' && typeof actual === 'string' && actual === String(expected)) return
  if (actual !== expected) problems.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}

function pick(source: { body: unknown; headers: Record<string, unknown> }, path: string): string {
  const [where, ...rest] = path.split('.')
  let value: unknown = where === 'headers' ? source.headers : source.body
  for (const part of rest) value = (value as Record<string, unknown> | undefined)?.[part]
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`nothing to save at ${path}`)
  return String(value)
}

for (const file of files) {
  const protocolCase = JSON.parse(readFileSync(`${directory}/${file}`, 'utf8')) as ProtocolCase
  t.test(`${file}: ${protocolCase.description}`, async (t) => {
    const variables: Record<string, string> = { ...globals }
    for (const step of protocolCase.steps) {
      const request = substitute(step.request, variables) as Step['request']
      const expect = substitute(step.expect, variables) as Step['expect']
      const token = request.root === 'token'
      const body = request.bodyText ?? (request.body === undefined ? undefined : JSON.stringify(request.body))
      const headers = {
        ...(token ? { Authorization: 'Bearer demo-token' } : {}),
        ...(body !== undefined && request.bodyText === undefined ? { 'Content-Type': 'application/json' } : {}),
        ...request.headers,
      }
      const response = token
        ? await client.service.request(request.method, `/api/v4/${request.path}`, { headers, body })
        : await client.request(request.method, request.path, body, headers)
      const label = `${step.name} (${request.method} ${request.path})`
      const problems: string[] = []
      if (response.status !== expect.status) problems.push(`status ${response.status}, expected ${expect.status}: ${response.text.slice(0, 300)}`)
      for (const [name, value] of Object.entries(expect.headers ?? {})) compare(response.headers[name.toLowerCase()], value, `header ${name}`, problems)
      for (const name of expect.absentHeaders ?? []) if (response.headers[name.toLowerCase()] !== undefined) problems.push(`header ${name} should be absent`)
      const json = response.text === '' ? undefined : JSON.parse(response.text)
      if (expect.emptyBody && response.text !== '') problems.push('the body should be empty')
      if (expect.body !== undefined) compare(json, expect.body, 'body', problems)
      if (expect.error) compare(json?.error, expect.error, 'error', problems)
      if (problems.length === 0) {
        // Saved before the database checks, which may name what this very step created.
        for (const [name, path] of Object.entries(step.save ?? {})) variables[name] = pick({ body: json, headers: response.headers }, path)
      }
      for (const check of problems.length > 0 ? [] : step.database ?? []) {
        const query = substitute(check, variables) as { sql: string; params?: unknown[]; rows: Record<string, unknown>[] }
        compare(await rows(client.pool, query.sql, query.params ?? []), query.rows, `database ${query.sql}`, problems, true)
      }
      t.same(problems, [], label)
      if (problems.length > 0) break
    }
  })
}
