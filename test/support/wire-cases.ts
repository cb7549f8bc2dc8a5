// Replays a folder of wire cases (protocol/<area>/*.json, format in each folder's README.md) against a
// running service: each request exactly as written, each answer compared by status, headers, and body
// (whole, as a subset, by patterns, or as text). `{root}` in an expected value stands for the service
// root the request went to.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT, type TestService } from './test-service.js'

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

/** `{root}` in every string of an expected value. */
function withRoot(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.replaceAll('{root}', root)
  if (Array.isArray(value)) return value.map((item) => withRoot(item, root))
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRoot(v, root)]))
  return value
}

function at(body: unknown, path: string): unknown {
  // Field names such as `@odata.nextLink` contain dots: try the whole name before splitting.
  if (body !== null && typeof body === 'object' && path in body) return (body as Record<string, unknown>)[path]
  const dot = path.indexOf('.')
  if (dot < 0 || body === null || typeof body !== 'object') return undefined
  return at((body as Record<string, unknown>)[path.slice(0, dot)], path.slice(dot + 1))
}

/**
 * One subtest per file of `directory`; fails when fewer than `minimumFiles` files are there, so that a
 * moved folder cannot pass by replaying nothing. A request header written as "" is left out (the
 * cases without credentials write `"Authorization": ""`).
 */
export function replayWireCases(t: Test, directory: string, service: Pick<TestService, 'port' | 'request'>, minimumFiles: number): void {
  const root = `http://127.0.0.1:${service.port}${REFERENCE_ROOT}`
  const files = readdirSync(directory).filter((f) => f.endsWith('.json')).sort()
  t.ok(files.length >= minimumFiles, `${directory}: at least ${minimumFiles} files of wire cases`)
  for (const file of files) {
    const { cases } = JSON.parse(readFileSync(join(directory, file), 'utf8')) as { cases: WireCase[] }
    t.test(file, async (t) => {
      for (const wire of cases) {
        const headers: Record<string, string> = { Authorization: DEMO_BASIC, ...(wire.request.headers ?? {}) }
        if (headers.Authorization === '') delete headers.Authorization
        const response = await service.request(wire.request.method, `${REFERENCE_ROOT}${wire.request.path}`, { headers })
        const expected = wire.response
        t.equal(response.status, expected.status, `${wire.name}: status (${response.text.slice(0, 200)})`)
        for (const [name, value] of Object.entries(expected.headers ?? {})) t.equal(response.headers[name], withRoot(value, root), `${wire.name}: ${name}`)
        for (const [name, pattern] of Object.entries(expected.headerPatterns ?? {})) t.match(String(response.headers[name]), new RegExp(pattern), `${wire.name}: ${name}`)
        if (expected.text !== undefined) t.equal(response.text, expected.text, `${wire.name}: text`)
        if (expected.body !== undefined) t.same(response.json(), withRoot(expected.body, root), `${wire.name}: body`)
        if (expected.bodyMatches !== undefined) t.has(response.json(), withRoot(expected.bodyMatches, root), `${wire.name}: body fields`)
        for (const [path, pattern] of Object.entries(expected.bodyPatterns ?? {})) t.match(String(at(response.json(), path)), new RegExp(pattern), `${wire.name}: ${path}`)
      }
    })
  }
}
