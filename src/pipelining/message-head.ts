// One HTTP/1.1 message head (RFC 9112 §2.1), request or response, split into its start line and header
// fields for the front's framing decisions. Bytes are read as latin1, which maps every byte to one
// character and back, so a head rewritten from these lines is byte for byte what the peer sent.

export interface HeaderField {
  /** Lower case, for comparison. */
  readonly name: string
  readonly value: string
  /** The line as sent, without its CRLF. */
  readonly line: string
}

export interface MessageHead {
  readonly startLine: string
  readonly fields: readonly HeaderField[]
  /** Every line after the start line as sent, those that do not parse included. */
  readonly lines: readonly string[]
  /** A header line that is not `name: value` (or an obsolete folded line): the message cannot be trusted. */
  readonly malformed: boolean
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** `head` is everything before the blank line that ends the head. */
export function parseMessageHead(head: Buffer): MessageHead {
  const lines = head.toString('latin1').split('\r\n')
  const fields: HeaderField[] = []
  let malformed = false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon) : ''
    if (!TOKEN.test(name)) {
      malformed = true
      continue
    }
    fields.push({ name: name.toLowerCase(), value: line.slice(colon + 1).trim(), line })
  }
  return { startLine: lines[0]!, fields, lines: lines.slice(1), malformed }
}

/** Every value of a header, comma lists split, in order. */
export function headerValues(head: MessageHead, name: string): string[] {
  const values: string[] = []
  for (const field of head.fields) if (field.name === name) for (const part of field.value.split(',')) values.push(part.trim())
  return values
}

export function hasHeader(head: MessageHead, name: string): boolean {
  return head.fields.some((field) => field.name === name)
}

/** `Connection: close` among the connection options. */
export function asksToClose(head: MessageHead): boolean {
  return headerValues(head, 'connection').some((option) => option.toLowerCase() === 'close')
}
