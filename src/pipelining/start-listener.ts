// How the service listens, after HTTP_PIPELINING: uWS alone on the port (`uws`: pipelined requests are
// answered only as far as uWS allows), or the serializing front on the port with uWS behind it on a unix
// socket (`serialize`: the front hands uWS one request of a connection at a time; docs/decisions.md, HTTP).
// A request meets the front first, so the front starts the uWS server behind itself, not the other way round.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningServer, type ServerOptions, startServer } from '../http/server.js'
import { MAX_REQUEST_HEAD_BYTES } from '../http/uws-header-limit.js'
import type { ServiceContext } from '../service/service-context.js'
import { type RunningFront, startSerializingFront } from './serializing-front.js'

export interface ListenerOptions extends Omit<ServerOptions, 'unixSocket'> {
  readonly pipelining?: 'uws' | 'serialize'
}

/** At a graceful stop, how long the front's connections may take to pass on their last answers. */
const FRONT_DRAIN_MS = 3000

export async function startListener(context: ServiceContext, options: ListenerOptions): Promise<RunningServer> {
  const { pipelining, ...serverOptions } = options
  if (pipelining !== 'serialize') return startServer(context, serverOptions)

  // uWS listens on a unix socket in a directory of this user's alone: nothing but the front reaches it.
  const socketDirectory = mkdtempSync(join(tmpdir(), 'odata-uws-'))
  const upstreamPath = join(socketDirectory, 'uws.sock')
  // Also when the process ends without closing the server (a benchmark's child, a crash of the worker).
  const removeSocketDirectory = () => {
    process.off('exit', removeSocketDirectory)
    rmSync(socketDirectory, { recursive: true, force: true })
  }
  process.once('exit', removeSocketDirectory)
  let server: RunningServer
  try {
    server = await startServer(context, { ...serverOptions, unixSocket: upstreamPath })
  } catch (error) {
    removeSocketDirectory()
    throw error
  }
  const maxHeadBytes = Number(process.env.UWS_HTTP_MAX_HEADERS_SIZE) || MAX_REQUEST_HEAD_BYTES
  let front: RunningFront
  try {
    front = await startSerializingFront({ host: options.host, port: options.port, upstreamPath, maxHeadBytes })
  } catch (error) {
    server.close()
    removeSocketDirectory()
    throw new Error(`Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`)
  }
  return {
    port: front.port,
    close: () => {
      front.stopAccepting()
      server.close()
      front.closeAll()
      removeSocketDirectory()
    },
    async stop(timeoutMs) {
      front.stopAccepting()
      const cutOff = await server.stop(timeoutMs)
      // Answers uWS has written may still be on their way through the front: its connections end after them.
      await front.drain(FRONT_DRAIN_MS)
      removeSocketDirectory()
      return cutOff
    },
  }
}
