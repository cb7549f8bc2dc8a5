// The headers of a request, copied out of uWS (its `req` is invalid after the callback returns), and the
// one framing fault uWS lets through to the application: `Content-Length` given twice with different
// values. uWS frames the body by one of them; a proxy in front may have framed it by the other, so the
// bytes after it could be read as a second request (request smuggling). RFC 9112 §6.3 makes such a
// message unrecoverable: `400`, and the connection is closed. Every other framing fault (a head over the
// bound, `Content-Length` with `Transfer-Encoding`, a bad chunk size, a request line that does not parse)
// uWS answers itself before the application sees the request (docs/decisions.md, HTTP), but one: uWS reads a body as chunked
// whenever `chunked` ends the list (`gzip, chunked`), and hands on bytes still coded in a coding the service
// does not decode. Only `chunked` alone is accepted; any other list is `501` (RFC 9112 §6.1), and the
// connection is closed, since a proxy in front may have framed the body otherwise.
import type { HttpRequest } from 'uWebSockets.js'
import { ODataError } from '../errors.js'

export interface RequestHead {
  readonly headers: Map<string, string>
  /** Set when the request cannot be answered on this connection without closing it. */
  readonly framingError: ODataError | undefined
}

export function readRequestHead(req: HttpRequest): RequestHead {
  const headers = new Map<string, string>()
  let framingError: ODataError | undefined
  req.forEach((name, value) => {
    if (name === 'content-length' && headers.has(name) && headers.get(name) !== value) {
      framingError = new ODataError('BadRequest', 'Content-Length is given more than once with different values')
    }
    if (name === 'transfer-encoding' && value.trim().toLowerCase() !== 'chunked') {
      framingError = new ODataError(
        'TransferCodingNotSupported',
        `Transfer-Encoding "${value.slice(0, 100)}": only chunked alone is accepted`,
      )
    }
    headers.set(name, value)
  })
  return { headers, framingError }
}
