// An operation of a multipart batch: checked when it was read, made into strings when it is used.
//
// The head scanner has already refused anything malformed, and the operation table records where the
// request line, the headers, the part's Content-ID and the body lie in the kept input (chunk-copies.ts).
// This object makes `method`, `url`, `headers`, `id` and `body` from those positions on first access,
// once: reading a batch of thousands of operations builds no strings, Maps or Buffers before the
// planner asks for them.

import { type BatchOperation, type OperationBody, type OperationHeaders, addHeader } from '../batch-document.js'
import { CARRIAGE_RETURN, LINE_FEED, isBlankByte } from '../http-chars.js'
import { Cell, type OperationPositions } from './operation-positions.js'

const NO_DEPENDENCIES: readonly string[] = Object.freeze([])
const COLON = 0x3a

/** What an operation has made of its ranges, on first access; null: not yet (an id or a body may be undefined). */
interface Made {
  method: string | null
  url: string | null
  headers: Map<string, string> | null
  id: string | undefined | null
  body: OperationBody | undefined | null
}

export class MultipartOperation implements BatchOperation {
  // The same for every multipart operation: on the prototype, not in each of thousands of objects.
  get kind(): 'operation' {
    return 'operation'
  }
  get atomicityGroup(): undefined {
    return undefined
  }
  get dependsOn(): readonly string[] {
    return NO_DEPENDENCIES
  }
  private made: Made | undefined = undefined

  /**
   * @param at the index of the operation's first cell in `table.cells`. A document's table holds one
   * row per operation in document order, so the row number is the operation's index.
   */
  constructor(
    private readonly table: OperationPositions,
    private readonly at: number,
  ) {}

  get index(): number {
    return this.at / Cell.Width
  }

  get method(): string {
    const made = this.madeSoFar()
    return (made.method ??= methodOf(this.buffer(Cell.Head), this.cell(Cell.RequestStart), this.cell(Cell.MethodEnd)))
  }

  get url(): string {
    // UTF-8: clients may write non-ASCII names without percent-encoding.
    const made = this.madeSoFar()
    return (made.url ??= this.buffer(Cell.Head).toString('utf8', this.cell(Cell.UrlStart), this.cell(Cell.UrlEnd)))
  }

  get headers(): OperationHeaders {
    const made = this.madeSoFar()
    return (made.headers ??= headersOf(this.buffer(Cell.Head), this.cell(Cell.FieldsStart), this.cell(Cell.HeadEnd)))
  }

  get id(): string | undefined {
    const made = this.madeSoFar()
    if (made.id === null) {
      // Olingo V2 clients put Content-ID among the embedded request's headers, not on the MIME part.
      made.id =
        this.cell(Cell.PartHead) >= 0
          ? this.buffer(Cell.PartHead).toString('utf8', this.cell(Cell.PartIdStart), this.cell(Cell.PartIdEnd))
          : this.headers.get('content-id')
    }
    return made.id
  }

  get body(): OperationBody | undefined {
    const made = this.madeSoFar()
    if (made.body === null) {
      if (this.cell(Cell.Body) < 0) made.body = undefined
      else {
        const bytes = this.buffer(Cell.Body)
        const start = this.cell(Cell.BodyStart)
        const end = this.cell(Cell.BodyEnd)
        made.body = { kind: 'bytes', bytes: start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end) }
      }
    }
    return made.body
  }

  /** The operation as a plain object: what JSON.stringify (a log, a test) sees. */
  toJSON(): BatchOperation {
    return {
      kind: this.kind,
      index: this.index,
      method: this.method,
      url: this.url,
      headers: this.headers,
      body: this.body,
      id: this.id,
      atomicityGroup: this.atomicityGroup,
      dependsOn: this.dependsOn,
    }
  }

  private madeSoFar(): Made {
    return (this.made ??= { method: null, url: null, headers: null, id: null, body: null })
  }

  private cell(cell: Cell): number {
    return this.table.cells[this.at + cell]
  }

  private buffer(cell: Cell): Buffer {
    return this.table.buffer(this.table.cells[this.at + cell])
  }
}

/** The usual methods, as written in upper case: recognised without making a string. */
const KNOWN_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'MERGE']

/** Upper-cased (a method is a token: ASCII). */
function methodOf(head: Buffer, start: number, end: number): string {
  const length = end - start
  for (const known of KNOWN_METHODS) {
    if (known.length !== length) continue
    let index = 0
    while (index < length && head[start + index] === known.charCodeAt(index)) index++
    if (index === length) return known
  }
  return head.toString('latin1', start, end).toUpperCase()
}

/**
 * The headers of `head[start, end)`, lines already checked by the head scanner: names lower-cased,
 * values without surrounding blanks, a repeated name joined with ", ".
 */
function headersOf(head: Buffer, start: number, end: number): Map<string, string> {
  const headers = new Map<string, string>()
  let lineStart = start
  while (lineStart < end) {
    let lineEnd = head.indexOf(LINE_FEED, lineStart)
    if (lineEnd === -1 || lineEnd > end) lineEnd = end
    let contentEnd = lineEnd
    // A CR ends the line before its LF, or at the part's end (head-scanner.ts, endWithPart).
    if (contentEnd > lineStart && head[contentEnd - 1] === CARRIAGE_RETURN) contentEnd--
    if (contentEnd > lineStart) {
      const colon = head.indexOf(COLON, lineStart)
      let valueStart = colon + 1
      let valueEnd = contentEnd
      while (valueStart < valueEnd && isBlankByte(head[valueStart])) valueStart++
      while (valueEnd > valueStart && isBlankByte(head[valueEnd - 1])) valueEnd--
      addHeader(headers, head.toString('latin1', lineStart, colon).toLowerCase(), head.toString('utf8', valueStart, valueEnd))
    }
    lineStart = lineEnd + 1
  }
  return headers
}
