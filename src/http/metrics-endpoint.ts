// `GET /metrics`: the Prometheus text format (src/metrics/service-metrics.ts), outside every service root.
// Protected by METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`; when unset,
// only a scraper on the loopback interface is answered (403 for any other address), so a service
// listening on a public interface does not show its traffic to the world by default.
import { timingSafeEqual } from 'node:crypto'
import { METRICS_CONTENT_TYPE, metricsText } from '../metrics/service-metrics.js'
import type { Responder } from './responder.js'

export const METRICS_PATH = '/metrics'

export interface MetricsRequest {
  readonly method: string
  readonly authorization: string | undefined
  /** The peer's address as uWS gives it (`getRemoteAddressAsText`), read in the request callback. */
  readonly remoteAddress: string
}

/** IPv4 127/8 and ::1, also written in full or as IPv4-mapped IPv6. */
export function isLoopback(address: string): boolean {
  const text = address.toLowerCase()
  if (text.startsWith('127.') || text === '::1' || text.startsWith('::ffff:127.')) return true
  const groups = text.split(':')
  if (groups.length !== 8 || !groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return false
  const value = groups.map((group) => Number.parseInt(group, 16))
  if (value.slice(0, 7).every((group) => group === 0) && value[7] === 1) return true
  return value.slice(0, 5).every((group) => group === 0) && value[5] === 0xffff && value[6]! >> 8 === 127
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function handleMetrics(request: MetricsRequest, token: string | undefined, responder: Responder): Promise<void> {
  const plain = { 'Content-Type': 'text/plain;charset=utf-8', 'Cache-Control': 'no-store' }
  if (request.method !== 'GET' && request.method !== 'HEAD') return responder.send(405, { ...plain, Allow: 'GET, HEAD' }, 'GET or HEAD\n')
  if (token !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(request.authorization ?? '')?.[1]?.trim()
    if (given === undefined || !sameToken(given, token))
      return responder.send(401, { ...plain, 'WWW-Authenticate': 'Bearer realm="metrics"' }, 'METRICS_TOKEN expected as a Bearer token\n')
  } else if (!isLoopback(request.remoteAddress)) {
    return responder.send(403, plain, 'metrics are answered on the loopback interface only, unless METRICS_TOKEN is set\n')
  }
  const text = await metricsText()
  responder.send(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' }, text)
}
