// What makes a request head unreadable (RFC 9112 §2.2, §3, §5.2), found by the front itself: uWS takes such
// a head without a word and waits until its idle timeout, so the front answers it `400` and closes,
// rather than forwarding bytes that would hang the client.
// - a line ending in a bare line feed among lines ending in CRLF (a head of bare line feeds only goes to uWS,
//   which answers it `505`);
// - a carriage return not followed by a line feed, or a NUL, anywhere in the head;
// - an obsolete folded line (one that starts with a space or a tab);
// - a request line that is not `method SP target SP HTTP/d.d`.

const REQUEST_LINE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^\s]+ HTTP\/\d\.\d$/

/** Why the head cannot be read, or undefined. `head` is everything before the blank line that ends it. */
export function headDefect(head: Buffer): string | undefined {
  const text = head.toString('latin1')
  if (text.includes('\0')) return 'has a NUL byte'
  if (/\r(?!\n)/.test(text)) return 'has a carriage return without a line feed'
  if (/(?<!\r)\n/.test(text)) return 'mixes line ends of CRLF and bare line feeds'
  if (/\n[ \t]/.test(text)) return 'has a folded header line'
  const requestLine = text.slice(0, text.indexOf('\r\n') >>> 0)
  if (!REQUEST_LINE.test(requestLine)) return 'has no request line of the form "method target HTTP/1.1"'
  return undefined
}
