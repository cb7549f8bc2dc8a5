// The uWebSockets.js HTTP layer: one catch-all route that finds the service root, authenticates,
// reads the body (bounded), resolves the request and hands it to the dispatcher.
//
// uWS specifics kept here: `onAborted` is registered (by Responder) before any `await`; request
// headers and URL are copied out synchronously, because `req` is invalid after the callback returns;
// body chunks are copied, because the ArrayBuffer given to `onData` is only valid during the callback.
import { startChangeRetention } from '../service/change-retention.js'
import * as uws from './uws.js'
import { ODataError, toODataError } from '../errors.js'
import { logger } from '../log/logger.js'
import { redactUrl } from '../log/redact-url.js'
import { parseQueryOptions } from '../odata/query-options.js'
import { resolveResourcePath, type ResourcePath } from '../odata/resource-path.js'
import { handleRequest } from '../service/handle-request.js'
import type { ServiceContext } from '../service/service-context.js'
import type { ServiceRequest } from '../service/service-request.js'
import { Authenticator } from './authenticate.js'
import { matchMount } from '../odata/mounts.js'
import { Responder } from './responder.js'
import { readBody } from './read-body.js'
import { readRequestHead } from './request-head.js'
import { admitRequest } from './admit-request.js'
import { handleBatch } from './batch-endpoint.js'
import { SETTINGS_PATH, handleSettings } from './settings-endpoint.js'
import { InFlight } from './in-flight.js'
import { CorsPolicy } from './cors.js'
import { handleAdmin, isAdminPath } from './admin-endpoint.js'
import { handleHealth, isHealthPath } from './health-endpoint.js'
import { METRICS_PATH, handleMetrics } from './metrics-endpoint.js'
import { type ObservablePool, observeRequest, unwatchPool, watchPool } from '../metrics/service-metrics.js'

export interface ServerOptions {
  readonly host: string
  readonly port: number
  /** `GET /metrics` wants this Bearer token; without one it answers loopback scrapers only. */
  readonly metricsToken?: string
  /** CORS_ORIGINS: the allowed origins, over the configuration's `cors.allowedOrigins`. */
  readonly corsOrigins?: string
  /**
   * Listen on this unix socket instead of host and port: behind the pipelining front (src/pipelining), which
   * alone can reach the socket, so the `X-Forwarded-For` it sets is the client's address.
   */
  readonly unixSocket?: string
}

export interface RunningServer {
  readonly port: number
  close(): void
  /**
   * A graceful stop: accepts no more connections, turns away new requests on open ones (503
   * ShuttingDown), waits up to `timeoutMs` for the requests in flight (batches included), then closes
   * every connection. Resolves with the number of requests cut off (0: all finished).
   */
  stop(timeoutMs: number): Promise<number>
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])

function absoluteRoot(headers: ReadonlyMap<string, string>, root: string, fallbackHost: string): string {
  const proto = headers.get('x-forwarded-proto') === 'https' ? 'https' : 'http'
  const host = headers.get('host') ?? fallbackHost
  // A Host header is the client's word; keep it from breaking the JSON or the URL it goes into.
  const safeHost = /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host) ? host : fallbackHost
  return `${proto}://${safeHost}${root}`
}

export async function startServer(context: ServiceContext, options: ServerOptions): Promise<RunningServer> {
  // The settings an administrator changed, in this process or another (decisions.md §8).
  await context.settings.load(context.pool)
  context.settings.startRefreshing(context.pool)
  const changeRetention = startChangeRetention(context.pool, () => context.settings.current.changeRetentionHours)
  const authenticator = new Authenticator(context.model)
  const app = uws.App()
  const fallbackHost = `${options.host}:${options.port}`
  const behindFront = options.unixSocket !== undefined
  const inFlight = new InFlight()
  const cors = new CorsPolicy(context.model.configuration.cors, options.corsOrigins)
  watchPool(context.pool as unknown as ObservablePool)

  app.any('/*', (res, req) => {
    const responder = new Responder(res)
    responder.behindFront = behindFront
    if (inFlight.draining)
      return responder.sendError(new ODataError('ShuttingDown', 'The service is stopping; send the request again'), {
        closeConnection: true,
      })
    inFlight.track(responder)
    const method = req.getCaseSensitiveMethod().toUpperCase()
    const url = req.getUrl()
    const rawQuery = req.getQuery() ?? ''
    const { headers, framingError } = readRequestHead(req)
    if (method === 'HEAD') responder.headOnly = true
    const started = performance.now()
    let subjectName = ''
    let profileName = ''
    let errorCode: string | undefined
    const log = () =>
      context.requestLog.append({
        at: new Date(),
        subject: subjectName,
        profile: profileName,
        method,
        url: rawQuery ? `${url}?${rawQuery}` : url,
        status: responder.status,
        durationMs: performance.now() - started,
        errorCode,
      })

    const fail = (error: unknown) => {
      const odataError = toODataError(error)
      if (odataError.status >= 500) logger.error({ err: error, method, url: redactUrl(url) }, 'request failed')
      errorCode = odataError.code
      if (!responder.done) responder.sendError(odataError)
      log()
    }

    if (framingError) {
      // The connection cannot be trusted past this request (request-head.ts). Answered on the next turn:
      // uWS would otherwise go on parsing the bytes after this body, in this same read, as a request; with
      // this one pending it closes the connection at such bytes instead, unanswered, which is safe.
      errorCode = framingError.code
      setImmediate(() => {
        responder.sendError(framingError, { closeConnection: true })
        log()
      })
      return
    }

    // Operations endpoints outside the service roots: no authentication, no request log, not counted.
    if (isHealthPath(url)) return void handleHealth(context, url, method, responder).catch(fail)
    if (url === METRICS_PATH) {
      const scrape = {
        method,
        authorization: headers.get('authorization'),
        // Behind the front uWS's peer is the front: the client's address is the one the front sets, and
        // only the front can reach uWS then (its unix socket).
        remoteAddress: behindFront ? (headers.get('x-forwarded-for') ?? '') : Buffer.from(res.getRemoteAddressAsText()).toString(),
      }
      return void handleMetrics(scrape, options.metricsToken, responder).catch(fail)
    }
    let flavour = 'none'
    responder.onDone(() => observeRequest(flavour, method, responder.status, (performance.now() - started) / 1000))

    const crossOrigin = cors.outcome(method, headers)
    if (crossOrigin.preflight) return responder.send(crossOrigin.status, crossOrigin.headers)
    responder.extraHeaders = crossOrigin.headers
    if (cors.refusesStateChange(method, headers)) {
      return fail(
        new ODataError('OriginNotAllowed', `${method} from the origin ${JSON.stringify(headers.get('origin')!.slice(0, 200))} is refused`),
      )
    }

    try {
      const mount = matchMount(url, context.model.mounts)
      if (!mount) throw new ODataError('NotFound', `No service root at ${url.length > 200 ? `${url.slice(0, 200)}…` : url}`)
      flavour = mount.flavour
      const query = parseQueryOptions(rawQuery)
      const subject = authenticator.authenticate(mount.flavour, {
        authorization: headers.get('authorization'),
        queryToken: query.custom.get('token'),
        pathToken: mount.pathToken,
      })
      subjectName = subject.name
      profileName = subject.profile.name
      if (mount.rest === SETTINGS_PATH) {
        return void handleSettings(context, { res, responder, method, headers, subject, admission: admitRequest(context, subject) }).then(
          log,
          fail,
        )
      }
      if (isAdminPath(mount.rest)) {
        return void handleAdmin(context, { responder, method, rest: mount.rest, query: new URLSearchParams(rawQuery), subject }).then(
          log,
          fail,
        )
      }
      let path: ResourcePath
      try {
        path = resolveResourcePath(context.model, mount.rest, { referenceClientForms: mount.flavour === 'reference' })
      } catch (error) {
        // A request that names nothing still counts against the rate rules (decisions.md §8); its refusal
        // is answered now, in this callback, as every refusal made without the database is (docs/decisions.md: pipelining).
        void admitRequest(context, subject)
        return fail(error)
      }
      const serviceRoot = absoluteRoot(headers, mount.root, fallbackHost)
      // Links the client follows keep its token segment, as the client wrote it (next-link.ts).
      const linkRoot =
        mount.pathToken === undefined ? serviceRoot : absoluteRoot(headers, url.slice(0, url.length - mount.rest.length), fallbackHost)
      if (path.kind === 'batch') {
        // The batch body is streamed into the intake, never read whole first.
        const ownRoots = [mount.root, url.slice(0, url.length - mount.rest.length)]
        return handleBatch(context, {
          res,
          responder,
          method,
          headers,
          subject,
          flavour: mount.flavour,
          serviceRoot,
          linkRoot,
          ownRoots: [...new Set(ownRoots)],
          url: rawQuery ? `${url}?${rawQuery}` : url,
        })
      }
      // Counted now, awaited before the request runs: a body is read meanwhile (uWS hands it over only to
      // a reader registered in this callback).
      const admission = admitRequest(context, subject)
      const run = (body: Buffer | undefined) => {
        const request: ServiceRequest = { method, path, query, headers, body, subject, flavour: mount.flavour, serviceRoot, linkRoot }
        admission.then(() => handleRequest(context, request, responder)).then(log, fail)
      }
      if (METHODS_WITH_BODY.has(method)) {
        // Requests carry no more than this in a body outside $batch: the batch limit is the service's largest.
        const maxBodyBytes = context.settings.current.maxBatchSizeMB * 1024 * 1024
        readBody(res, headers, maxBodyBytes, responder).then(run, fail)
      } else {
        run(undefined)
      }
    } catch (error) {
      fail(error)
    }
  })

  const unixSocket = options.unixSocket
  const listenSocket = await new Promise<uws.us_listen_socket>((resolve, reject) => {
    const listened = (socket: uws.us_listen_socket | false) => {
      if (socket) resolve(socket)
      else
        reject(
          new Error(
            unixSocket
              ? `Cannot listen on the unix socket ${unixSocket}`
              : `Cannot listen on ${options.host}:${options.port} (is the port taken?)`,
          ),
        )
    }
    if (unixSocket) app.listen_unix(listened, unixSocket)
    else app.listen(options.host, options.port, listened)
  })
  let listening = true
  const stopListening = () => {
    context.settings.stopRefreshing()
    changeRetention.stop()
    unwatchPool(context.pool as unknown as ObservablePool)
    if (listening) uws.us_listen_socket_close(listenSocket)
    listening = false
  }
  return {
    port: uws.us_socket_local_port(listenSocket),
    close: () => {
      stopListening()
      app.close()
    },
    async stop(timeoutMs) {
      stopListening()
      inFlight.draining = true
      await inFlight.idle(timeoutMs)
      const cutOff = inFlight.size
      app.close()
      return cutOff
    },
  }
}
