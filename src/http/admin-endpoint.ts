// `<service root>/$admin`: the administration page for a subject whose profile has `administer: true`
// (as `$settings`, decisions.md §8). Not an OData resource: in no `$metadata`, its `$` keeps it apart from
// every entity set.
//
//   GET $admin                → the page (admin-page.ts): settings, request log, rate counters, throughput
//   GET $admin/page.js        → its script (a file of its own, so the page's CSP allows no inline script)
//   GET $admin/log?status=4xx&subject=demo&batch=<Пакет>&page=2 → a page of the request log, newest first
//   GET $admin/rates          → the rate rules' counters in their current windows
//   GET $admin/throughput     → counters to take rates from (all processes' sums, as /metrics gives them)
// The settings themselves are read and changed through `$settings`, with its validation.
import { readFileSync } from 'node:fs'
import { ODataError } from '../errors.js'
import { readRateCounters } from '../limits/rate-counters.js'
import { readRequestLog } from '../log/request-log-query.js'
import { metricsText } from '../metrics/service-metrics.js'
import type { SubjectModel } from '../model/model.js'
import type { ServiceContext } from '../service/service-context.js'
import { ADMIN_HTML } from './admin-page.js'
import type { Responder } from './responder.js'

export const ADMIN_PATH = '$admin'
/** The page's script as the compiler left it beside this module; read once, when the service starts. */
const ADMIN_SCRIPT = readFileSync(new URL('./admin-page-script.js', import.meta.url), 'utf8')
const PAGE_SIZE = 50
const NO_STORE = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }
const JSON_TYPE = { ...NO_STORE, 'Content-Type': 'application/json;charset=utf-8' }

export function isAdminPath(rest: string): boolean {
  return rest === ADMIN_PATH || rest.startsWith(`${ADMIN_PATH}/`)
}

export interface AdminRequest {
  readonly responder: Responder
  readonly method: string
  /** The path under the service root (`$admin`, `$admin/log`). */
  readonly rest: string
  readonly query: URLSearchParams
  readonly subject: SubjectModel
}

export async function handleAdmin(context: ServiceContext, request: AdminRequest): Promise<void> {
  if (!request.subject.profile.administer) {
    throw new ODataError('Forbidden', `The profile ${request.subject.profile.name} may not administer the service`)
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new ODataError('MethodNotAllowed', `${request.method} is not allowed on ${request.rest}; allowed: GET`, {
      headers: { Allow: 'GET, HEAD' },
    })
  }
  const { responder } = request
  switch (request.rest) {
    case ADMIN_PATH:
      return responder.send(
        200,
        {
          ...NO_STORE,
          'Content-Type': 'text/html;charset=utf-8',
          'Content-Security-Policy': "default-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        },
        ADMIN_HTML,
      )
    case `${ADMIN_PATH}/page.js`:
      return responder.send(200, { ...NO_STORE, 'Content-Type': 'text/javascript;charset=utf-8' }, ADMIN_SCRIPT)
    case `${ADMIN_PATH}/log`:
      return responder.send(200, JSON_TYPE, JSON.stringify(await requestLogPage(context, request.query)))
    case `${ADMIN_PATH}/rates`:
      return responder.send(200, JSON_TYPE, JSON.stringify({ counters: await readRateCounters(context.pool, context.model) }))
    case `${ADMIN_PATH}/throughput`:
      return responder.send(200, JSON_TYPE, JSON.stringify(throughput(await metricsText())))
    default:
      throw new ODataError('NotFound', `No administration resource ${request.rest}`)
  }
}

async function requestLogPage(context: ServiceContext, query: URLSearchParams) {
  // Digits only: Number() would also read `1e3`, `0x10`, ` 2` and `2.0` as pages.
  const pageText = query.get('page') ?? '1'
  const page = /^[1-9]\d{0,8}$/.test(pageText) ? Number(pageText) : Number.NaN
  if (!Number.isSafeInteger(page) || page < 1)
    throw new ODataError('InvalidQueryOption', 'page must be a whole number from 1', { target: 'page' })
  try {
    return await readRequestLog(context.pool, {
      status: query.get('status') ?? undefined,
      subject: query.get('subject') ?? undefined,
      batchId: query.get('batch') ?? undefined,
      page,
      pageSize: PAGE_SIZE,
    })
  } catch (error) {
    if (error instanceof RangeError) throw new ODataError('InvalidQueryOption', error.message, { target: 'status' })
    throw error
  }
}

/** The counters a rate is taken from, summed over their labels, with the time they were read. */
export function throughput(metrics: string): {
  at: number
  requests: number
  batchOperations: number
  rowsStreamed: number
  poolInUse: number
} {
  const sum = (name: string) => {
    let total = 0
    for (const line of metrics.split('\n')) {
      if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.slice(line.lastIndexOf(' ') + 1))
    }
    return total
  }
  return {
    at: Date.now(),
    requests: sum('odata_requests_total'),
    batchOperations: sum('odata_batch_operations_total'),
    rowsStreamed: sum('odata_rows_streamed_total'),
    poolInUse: sum('odata_pool_connections_in_use'),
  }
}
