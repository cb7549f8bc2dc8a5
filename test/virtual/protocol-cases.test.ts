// Replays the wire cases of protocol/virtual (format: protocol/virtual/README.md) against a running
// service loaded with the virtual-table fixture: each request exactly as written, each answer compared
// by status, headers, and body (whole, as a subset, by patterns, or as text).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT } from '../support/test-service.js'
import { startVirtualService } from './support/virtual-fixture.js'

interface WireCase {
  readonly name: string
  readonly request: { readonly method: string; readonly path: string; readonly headers?: Record<string, string> }
  readonly response: {
    readonly status: number
    readonly headers?: Record<string, string>
    readonly headerPatterns?: Record<string, string>
    readonly body?: unknown
    readonly bodyMatches?: unknown
    readonly bodyPatterns?: Record<string, string>
    readonly text?: string
  }
}

const DIRECTORY = 'protocol/virtual'
const service = await startVirtualService('virtual_protocol_cases')
t.teardown(() => service.close())
const root = `http://127.0.0.1:${service.port}${REFERENCE_ROOT}`

function withRoot(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('{root}', root)
  if (Array.isArray(value)) return value.map(withRoot)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRoot(v)]))
  return value
}

function at(body: unknown, path: string): unknown {
  if (body !== null && typeof body === 'object' && path in body) return (body as Record<string, unknown>)[path]
  const dot = path.indexOf('.')
  if (dot < 0 || body === null || typeof body !== 'object') return undefined
  return at((body as Record<string, unknown>)[path.slice(0, dot)], path.slice(dot + 1))
}

const files = readdirSync(DIRECTORY).filter((f) => f.endsWith('.json')).sort()
t.ok(files.length >= 5, 'a file per function and one of refusals')
for (const file of files) {
  const { cases } = JSON.parse(readFileSync(join(DIRECTORY, file), 'utf8')) as { cases: WireCase[] }
  t.test(file, async (t) => {
    for (const wire of cases) {
      const headers = { Authorization: DEMO_BASIC, ...(wire.request.headers ?? {}) }
      const response = await service.request(wire.request.method, `${REFERENCE_ROOT}${wire.request.path}`, { headers })
      const expected = wire.response
      t.equal(response.status, expected.status, `${wire.name}: status (${response.text.slice(0, 200)})`)
      for (const [name, value] of Object.entries(expected.headers ?? {})) t.equal(response.headers[name], withRoot(value), `${wire.name}: ${name}`)
      for (const [name, pattern] of Object.entries(expected.headerPatterns ?? {})) t.match(String(response.headers[name]), new RegExp(pattern), `${wire.name}: ${name}`)
      if (expected.text !== undefined) t.equal(response.text, expected.text, `${wire.name}: text`)
      if (expected.body !== undefined) t.same(response.json(), withRoot(expected.body), `${wire.name}: body`)
      if (expected.bodyMatches !== undefined) t.has(response.json(), withRoot(expected.bodyMatches), `${wire.name}: body fields`)
      for (const [path, pattern] of Object.entries(expected.bodyPatterns ?? {})) t.match(String(at(response.json(), path)), new RegExp(pattern), `${wire.name}: ${path}`)
    }
  })
}
