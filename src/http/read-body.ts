// Reads a (non-batch) request body into one Buffer, bounded: `Content-Length` over the limit is refused
// before reading, the running count is checked per chunk, and a body shorter or longer than its
// `Content-Length` is refused (fastify's three checks). Chunks are copied: uWS reuses their memory.
import type { HttpResponse } from 'uWebSockets.js'
import { ODataError } from '../errors.js'
import type { Responder } from './responder.js'

export function readBody(res: HttpResponse, headers: ReadonlyMap<string, string>, maxBytes: number, responder: Responder): Promise<Buffer> {
  const declared = headers.get('content-length')
  const declaredLength = declared === undefined ? undefined : Number(declared)
  if (declaredLength !== undefined && (!Number.isSafeInteger(declaredLength) || declaredLength < 0)) {
    return Promise.reject(new ODataError('BadRequest', 'Content-Length is not a number'))
  }
  if (declaredLength !== undefined && declaredLength > maxBytes) {
    return Promise.reject(new ODataError('PayloadTooLarge', `The body has ${declaredLength} bytes; at most ${maxBytes} are accepted`))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let failed = false
    res.onData((chunk, isLast) => {
      if (failed || responder.aborted) return
      received += chunk.byteLength
      if (received > maxBytes) {
        failed = true
        return reject(new ODataError('PayloadTooLarge', `The body passed ${maxBytes} bytes`))
      }
      chunks.push(Buffer.from(chunk.slice(0)))
      if (isLast) {
        if (declaredLength !== undefined && received !== declaredLength) {
          return reject(new ODataError('BadRequest', `The body has ${received} bytes but Content-Length says ${declaredLength}`))
        }
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received))
      }
    })
  })
}
