// The one replayer of the wire cases (protocol/README.md): every case of an area against a running
// service with the data set the case names (one service per data set, shared by the area's cases), step
// by step, each answer compared by status, headers, body (whole, by fields, or as text), error, `$batch`
// statuses, and the database checks of the step. A step that fails ends its case: later steps build on it.
import type { Test } from 'tap'
import { batchAnswerOf } from './batch-answer.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, type TestResponse, type TestService, startTestService } from './test-service.js'
import {
  loadWireCases,
  substitute,
  type DatabaseCheck,
  type WireCase,
  type WireExpect,
  type WireRequest,
  type WireStep,
} from './wire-case.js'
import { namedValues, WIRE_DATA_SETS } from './wire-data.js'
import { makeFixture } from './wire-given.js'
import { matchExpected } from './wire-match.js'

/** The request of a step as it goes on the wire: the root's credentials, JSON bodies as JSON; a header written as "" is left out. */
export function sendStep(service: TestService, request: WireRequest): Promise<TestResponse> {
  const token = request.root === 'token'
  const body = request.bodyText ?? (request.body === undefined ? undefined : JSON.stringify(request.body))
  const headers: Record<string, string> = { Authorization: token ? 'Bearer demo-token' : DEMO_BASIC }
  if (request.body !== undefined) headers['Content-Type'] = 'application/json'
  // The case's headers replace these whatever their case; "" sends none.
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const given of Object.keys(headers)) if (given.toLowerCase() === name.toLowerCase()) delete headers[given]
    if (value !== '') headers[name] = value
  }
  // An absolute path is a link the service handed out (a saved `@odata.deltaLink`), followed as given.
  const absolute = /^https?:\/\//.test(request.path) ? new URL(request.path) : undefined
  const target = absolute ? `${absolute.pathname}${absolute.search}` : `${token ? TOKEN_ROOT : REFERENCE_ROOT}${request.path}`
  return service.request(request.method, target, { headers, body })
}

function headerOf(response: TestResponse, name: string): unknown {
  return response.headers[name.toLowerCase()]
}

/** Every difference between an answer and what the step expects. */
function answerProblems(response: TestResponse, expect: WireExpect): { problems: string[]; json: () => unknown } {
  const problems: string[] = []
  let parsed: { value: unknown } | undefined
  const json = () => {
    if (parsed === undefined) {
      try {
        parsed = { value: response.text === '' ? undefined : JSON.parse(response.text) }
      } catch {
        problems.push(`the body is not JSON: ${response.text.slice(0, 200)}`)
        parsed = { value: undefined }
      }
    }
    return parsed.value
  }
  if (response.status !== expect.status)
    problems.push(`status ${response.status}, expected ${expect.status}: ${response.text.slice(0, 300)}`)
  for (const [name, value] of Object.entries(expect.headers ?? {}))
    matchExpected(headerOf(response, name), value, `header ${name}`, problems)
  for (const name of expect.absentHeaders ?? [])
    if (headerOf(response, name) !== undefined) problems.push(`header ${name} should be absent`)
  if (expect.text !== undefined && response.text !== expect.text)
    problems.push(`text: expected ${JSON.stringify(expect.text)}, got ${JSON.stringify(response.text.slice(0, 300))}`)
  if (expect.body !== undefined) matchExpected(json(), expect.body, 'body', problems, { whole: true })
  if (expect.bodyHas !== undefined) matchExpected(json(), expect.bodyHas, 'body', problems)
  if (expect.error !== undefined) matchExpected((json() as { error?: unknown } | undefined)?.error, expect.error, 'error', problems)
  if (expect.batch !== undefined && problems.length === 0) {
    const answer = batchAnswerOf(response)
    matchExpected(answer.parts, expect.batch.parts, 'batch parts', problems)
    for (const [id, code] of Object.entries(expect.batch.codes ?? {}))
      matchExpected(answer.codes[id], code, `batch response ${id}: error code`, problems)
    if (expect.batch.contentIds !== undefined) matchExpected(answer.contentIds, expect.batch.contentIds, 'batch Content-IDs', problems)
  }
  return { problems, json }
}

function saved(path: string, response: TestResponse, json: () => unknown): string {
  const [where, ...rest] = path.split('.')
  let value: unknown = where === 'headers' ? response.headers : where === 'body' ? json() : undefined
  // A member whose name has dots (`body.@odata.deltaLink`) is taken whole.
  const whole = rest.join('.')
  if (where === 'body' && whole.startsWith('@')) return savedValue((value as Record<string, unknown> | undefined)?.[whole], path)
  for (const part of rest) value = (value as Record<string, unknown> | undefined)?.[where === 'headers' ? part.toLowerCase() : part]
  return savedValue(value, path)
}

function savedValue(value: unknown, path: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`nothing to save at ${path}`)
  return String(value)
}

/** Replays one case; its variables start from the data set's named values and the fixtures it asks for. */
export async function replayCase(t: Test, service: TestService, values: Record<string, string>, wireCase: WireCase): Promise<void> {
  const variables: Record<string, string> = { ...values }
  for (const [name, fixture] of Object.entries(wireCase.given)) Object.assign(variables, await makeFixture(service, values, name, fixture))
  const lookup = (name: string) => {
    if (!(name in variables)) throw new Error(`${wireCase.file}: unknown variable \${${name}}`)
    return variables[name]!
  }
  for (const step of wireCase.steps) {
    const request = substitute(step.request, lookup) as WireStep['request']
    const expect = substitute(step.expect, lookup) as WireExpect
    const response = await sendStep(service, request)
    const { problems, json } = answerProblems(response, expect)
    if (problems.length === 0) {
      // Saved before the database checks, which may name what this very step created.
      for (const [name, path] of Object.entries(step.save ?? {})) variables[name] = saved(path, response, json)
      for (const check of step.database ?? []) {
        const query = substitute(check, lookup) as DatabaseCheck
        const [rows] = await service.database.pool.query(query.sql, [...(query.params ?? [])])
        matchExpected(rows, query.rows, `database ${query.sql}`, problems, { loose: true })
      }
    }
    t.same(problems, [], `${step.name} (${request.method} ${request.path})`)
    if (problems.length > 0) break
  }
}

/**
 * One subtest per case of protocol/<area>. Fails when the area has fewer than `minimumCases` cases, so
 * that a moved folder cannot pass by replaying nothing.
 */
export async function replayWireCases(t: Test, area: string, minimumCases: number): Promise<void> {
  const cases = loadWireCases(area)
  t.ok(cases.length >= minimumCases, `protocol/${area}: at least ${minimumCases} cases (${cases.length})`)
  for (const data of WIRE_DATA_SETS) {
    const ofData = cases.filter((wireCase) => wireCase.data === data)
    if (ofData.length === 0) continue
    const service = await startTestService(`wire_${area}_${data}`, { data })
    try {
      const values = await namedValues(service)
      for (const wireCase of ofData)
        await t.test(`${wireCase.file}: ${wireCase.description}`, (t) => replayCase(t, service, values, wireCase))
    } finally {
      await service.close()
    }
  }
}
