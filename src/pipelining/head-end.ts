// Where a message head ends in the bytes held so far (RFC 9112 §2.1: the empty line after the header
// fields). The front calls it on everything held since the last head, so it must give the same answer
// however the head arrived in pieces: nothing until the empty line is all here, then always the same end.
const LF = 0x0a
const CR = 0x0d

/**
 * Where the head at the start of `bytes` ends: at the first line feed followed by an empty line, however
 * either line ends. `head` is the head's length without its last line end, `next` where what follows it
 * starts. `lineEnds`: `crlf` when both end in CRLF; `bare` for a head of bare line feeds only (HTTP/1.1 wants
 * CRLF, and uWS answers it 505); `mixed` otherwise. Undefined: the head is not all here yet.
 */
export function headEnd(bytes: Buffer): { head: number; next: number; lineEnds: 'crlf' | 'bare' | 'mixed' } | undefined {
  for (let lf = bytes.indexOf(LF); lf >= 0; lf = bytes.indexOf(LF, lf + 1)) {
    const crBefore = lf > 0 && bytes[lf - 1] === CR
    const head = crBefore ? lf - 1 : lf
    if (bytes[lf + 1] === LF) {
      const bare = !crBefore && !bytes.subarray(0, lf).includes(CR)
      return { head, next: lf + 2, lineEnds: bare ? 'bare' : 'mixed' }
    }
    if (bytes[lf + 1] === CR && bytes[lf + 2] === LF) return { head, next: lf + 3, lineEnds: crBefore ? 'crlf' : 'mixed' }
    if (lf + 2 >= bytes.length) return undefined
  }
  return undefined
}
