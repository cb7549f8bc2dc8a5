// An HTTP client of one OData service root over keep-alive connections (undici's Pool): the load and
// drive tools talk to the service only through it, as any other client would.
import { Pool } from 'undici'
import type { ReusableBody } from './reusable-body.js'

export interface ServiceAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: Buffer
  text(): string
  json(): unknown
}

export interface ServiceClientOptions {
  /** The service root, ending in `/v4/` (`http://127.0.0.1:8080/api/v4/`). */
  readonly root: string
  /** The value of the Authorization header, when the root needs one (`Bearer …`, `Basic …`). */
  readonly authorization?: string
  /** Other headers sent with every request (`--header 'Name: value'`). */
  readonly headers?: Readonly<Record<string, string>>
  readonly connections?: number
}

export class ServiceClient {
  readonly root: URL
  private readonly pool: Pool
  private readonly common: Record<string, string>

  constructor(options: ServiceClientOptions) {
    this.root = new URL(options.root.endsWith('/') ? options.root : `${options.root}/`)
    this.pool = new Pool(this.root.origin, { connections: options.connections ?? 8, pipelining: 1, keepAliveTimeout: 30_000 })
    this.common = { ...(options.headers ?? {}) }
    if (options.authorization) this.common.authorization = options.authorization
  }

  /** The path of `relative` under the root (as sent on the request line). */
  path(relative: string): string {
    return `${this.root.pathname}${relative.replace(/^\//, '')}`
  }

  async request(
    method: string,
    relative: string,
    options: {
      headers?: Record<string, string>
      body?: string | Buffer
      /** Where the answer's body is read: it stays valid until the next answer is read there. */
      into?: ReusableBody
    } = {},
  ): Promise<ServiceAnswer> {
    const response = await this.pool.request({
      method: method as 'GET',
      path: this.path(relative),
      headers: { ...this.common, ...(options.headers ?? {}) },
      body: options.body,
    })
    const body = options.into ? await options.into.fill(response.body) : Buffer.from(await response.body.arrayBuffer())
    return {
      status: response.statusCode,
      headers: response.headers,
      body,
      text: () => body.toString('utf8'),
      json: () => JSON.parse(body.toString('utf8')),
    }
  }

  async close(): Promise<void> {
    await this.pool.close()
  }
}

/** The error of an OData error body (decisions.md §4), or what can be said without one. */
export function errorOf(answer: { status: number; body: Buffer }): { code: string; message: string } {
  try {
    const error = JSON.parse(answer.body.toString('utf8')).error
    if (error && typeof error.code === 'string') return { code: error.code, message: String(error.message ?? '') }
  } catch {
    // not JSON: fall through
  }
  return { code: `HTTP${answer.status}`, message: answer.body.toString('utf8').slice(0, 300) }
}
