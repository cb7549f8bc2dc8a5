// `GET /health` and `GET /ready`, outside every service root and without authentication, for load
// balancers and orchestrators:
//   /health → 200 {"status":"up"} while the process serves (liveness: no database involved);
//   /ready  → 200 {"status":"ready"} when MySQL answers within two seconds and holds the schema at the
//             code's version (src/store/schema-check.ts); otherwise 503 {"status":"unready","problems":[…]}.
// Neither is an OData resource, counted in the request metrics, or written to the request log.
import type { ServiceContext } from '../service/service-context.js'
import { schemaDifferences } from '../store/schema-check.js'
import type { Responder } from './responder.js'

export const HEALTH_PATH = '/health'
export const READY_PATH = '/ready'

const DATABASE_WAIT_MS = 2000
const JSON_TYPE = { 'Content-Type': 'application/json;charset=utf-8', 'Cache-Control': 'no-store' }

export function isHealthPath(url: string): boolean {
  return url === HEALTH_PATH || url === READY_PATH
}

export async function handleHealth(context: ServiceContext, url: string, method: string, responder: Responder): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD') {
    return responder.send(405, { ...JSON_TYPE, Allow: 'GET, HEAD' }, JSON.stringify({ status: 'method not allowed' }))
  }
  if (url === HEALTH_PATH)
    return responder.send(200, JSON_TYPE, JSON.stringify({ status: 'up', pid: process.pid, uptimeSeconds: Math.round(process.uptime()) }))
  const problems = await readinessProblems(context)
  if (responder.done) return
  if (problems.length === 0) responder.send(200, JSON_TYPE, JSON.stringify({ status: 'ready', pid: process.pid }))
  else responder.send(503, { ...JSON_TYPE, 'Retry-After': '5' }, JSON.stringify({ status: 'unready', pid: process.pid, problems }))
}

async function readinessProblems(context: ServiceContext): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([`the database did not answer within ${DATABASE_WAIT_MS} ms`]), DATABASE_WAIT_MS)
  })
  const check = schemaDifferences(context.pool, context.model).catch((error: unknown) => [
    `the database is not reachable: ${(error as Error).message}`,
  ])
  try {
    return await Promise.race([check, timeout])
  } finally {
    clearTimeout(timer)
  }
}
