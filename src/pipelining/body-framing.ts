// How the end of a message body is found (RFC 9112 §6.3), as the front needs it: nothing, a length, the
// chunked coding, the closing of the connection (responses only), or not at all — a request whose
// framing the front cannot trust is forwarded as the last one of its connection, and the service (or uWS)
// answers it as it does without the front.
import { type MessageHead, hasHeader, headerValues } from './message-head.js'

export type BodyFraming =
  | { readonly kind: 'none' }
  | { readonly kind: 'length'; readonly length: number }
  | { readonly kind: 'chunked' }
  | { readonly kind: 'until-close' }
  | { readonly kind: 'unframable' }

const NONE: BodyFraming = { kind: 'none' }
const CHUNKED: BodyFraming = { kind: 'chunked' }
const UNFRAMABLE: BodyFraming = { kind: 'unframable' }

/** Transfer-Encoding and Content-Length of one message: `until-close` when neither is given. */
function declaredFraming(head: MessageHead): BodyFraming {
  const hasLength = hasHeader(head, 'content-length')
  if (hasHeader(head, 'transfer-encoding')) {
    // Both given, or a coding other than a lone `chunked`: RFC 9112 §6.1 says such a request cannot be
    // framed safely (request smuggling); uWS refuses it, so the front must not guess.
    const codings = headerValues(head, 'transfer-encoding')
    return !hasLength && codings.length === 1 && codings[0]!.toLowerCase() === 'chunked' ? CHUNKED : UNFRAMABLE
  }
  if (!hasLength) return { kind: 'until-close' }
  const lengths = new Set(headerValues(head, 'content-length'))
  const [only] = lengths
  // The same value repeated is one length (RFC 9110 §8.6); different values or no number cannot frame.
  if (lengths.size !== 1 || !/^\d{1,15}$/.test(only!)) return UNFRAMABLE
  const length = Number(only)
  return length === 0 ? NONE : { kind: 'length', length }
}

export function requestFraming(head: MessageHead): BodyFraming {
  if (head.malformed || !/^[A-Za-z]+ \S+ HTTP\/1\.1$/.test(head.startLine)) return UNFRAMABLE
  const framing = declaredFraming(head)
  // A request without a length has no body (RFC 9112 §6.3 rule 7), unlike a response.
  return framing.kind === 'until-close' ? NONE : framing
}

/** Status 1xx is an interim answer: another head follows for the same request. */
export function responseStatus(head: MessageHead): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.startLine)?.[1] ?? Number.NaN)
}

export function responseFraming(head: MessageHead, requestMethod: string): BodyFraming {
  const status = responseStatus(head)
  if (requestMethod === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return NONE
  const framing = declaredFraming(head)
  return framing.kind === 'unframable' ? { kind: 'until-close' } : framing
}
