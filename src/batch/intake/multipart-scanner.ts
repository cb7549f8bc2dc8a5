// The JavaScript side of the multipart fast path (wasm/multipart-scan.ts): loads the WebAssembly
// module once, gives each intake an instance with a memory of its own, and reuses instances and
// memories from batch to batch.
//
// Why reuse: the memory holds the whole body, and a fresh WebAssembly memory is fresh pages from the
// operating system; touching ten megabytes of new pages costs more than the scan itself. An instance
// comes back when the intake gives up on the fast path (the general parser has copied what it needs)
// or when the batch document is released after the batch has run (BatchDocument.release); an instance
// that is never given back is simply collected. A few are kept, the largest memories not at all.

import { readFileSync } from 'node:fs'
import { TOKEN_BYTE } from './http-chars.js'
import { KNOWN_LINE_TEXTS } from './known-lines.js'
import type { IntakeLimits } from './intake-limits.js'
import { Cell } from './operation-table.js'

/** What `scan` answers (wasm/multipart-scan.ts). */
export const enum ScanStatus {
  /** Every complete part is read; push more. */
  NeedInput = 0,
  /** The rows are full: take them, then scan again. */
  RowsFull = 1,
  /** Leave this batch to the general parser. */
  Fallback = 2,
  /** The close delimiter was read; the rest is the epilogue. */
  Complete = 3,
}

interface ScanExports {
  setup(needleLength: number, maxOperations: number, maxHeaderBytes: number, maxHeaderCount: number, maxLine: number): void
  scan(end: number, final: number): ScanStatus
  classesAddress(): number
  tokenNibblesAddress(): number
  batchNeedleAddress(): number
  knownLinesAddress(): number
  knownLineCapacity(): number
  knownLineBytes(): number
  rowsAddress(): number
  rowCells(): number
  placesAddress(): number
  dataAddress(): number
  rowCount(): number
  clearRows(): void
  topLevelPartCount(): number
  operationCount(): number
  partsParsedCount(): number
}

const PAGE_BYTES = 65_536
/** Instances kept for reuse, and the largest memory worth keeping. */
const IDLE_INSTANCES = 4
const LARGEST_KEPT_MEMORY = 64 * 1_048_576
/** The module reads nothing past the data, but a few spare bytes cost nothing. */
const SPARE_BYTES = 64

const module = new WebAssembly.Module(readFileSync(new URL('./wasm/multipart-scan.wasm', import.meta.url)))
const idle: MultipartScanner[] = []

/** One instance of the scan module and its memory, used by one intake at a time. */
export class MultipartScanner {
  private readonly memory: WebAssembly.Memory
  private readonly scanner: ScanExports
  /** Views of the memory: replaced whenever it grows (growing detaches the old ones). */
  private bytes: Uint8Array
  private cells: Int32Array
  /** The end of the data received, as an address. */
  private end = 0
  readonly dataStart: number

  private constructor() {
    this.memory = new WebAssembly.Memory({ initial: 4 })
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory, abort: moduleAborted } })
    this.scanner = instance.exports as unknown as ScanExports
    if (this.scanner.rowCells() !== Cell.Width) throw new Error('unreachable: the scan module writes rows of another width than the operation table')
    this.dataStart = this.scanner.dataAddress()
    this.bytes = new Uint8Array(this.memory.buffer)
    this.cells = new Int32Array(this.memory.buffer)
    this.writeTables()
  }

  /**
   * An instance for a new batch delimited by `boundary` (RFC 2046: at most 70 characters, no CR or LF).
   * `expectedBytes`, the declared Content-Length if any, sizes the memory at once.
   */
  static acquire(boundary: string, limits: IntakeLimits, expectedBytes?: number): MultipartScanner {
    const scanner = idle.pop() ?? new MultipartScanner()
    scanner.begin(boundary, limits)
    if (expectedBytes !== undefined && expectedBytes <= limits.maxBytes) scanner.reserve(expectedBytes)
    return scanner
  }

  /** Gives the instance back for another batch; nothing may read its memory afterwards. */
  release(): void {
    if (idle.length < IDLE_INSTANCES && this.memory.buffer.byteLength <= LARGEST_KEPT_MEMORY && !idle.includes(this)) idle.push(this)
  }

  /** Bytes received so far. */
  get received(): number {
    return this.end - this.dataStart
  }

  /** Appends a chunk to the data, growing the memory as needed (`maxBytes` bounds what an intake appends). */
  append(chunk: Uint8Array): void {
    const needed = this.end + chunk.length + SPARE_BYTES
    // An eighth more than needed, at least a megabyte: a body that streams in grows it a few times only.
    if (needed > this.bytes.length) this.grow(needed + Math.max(needed >> 3, 1_048_576))
    this.bytes.set(chunk, this.end)
    this.end += chunk.length
  }

  scan(final: boolean): ScanStatus {
    return this.scanner.scan(this.end, final ? 1 : 0)
  }

  get rowCount(): number {
    return this.scanner.rowCount()
  }

  /** The rows written since the last `clearRows`: `Cell.Width` cells each. */
  rows(): Int32Array {
    const start = this.scanner.rowsAddress() >> 2
    return this.cells.subarray(start, start + this.scanner.rowCount() * Cell.Width)
  }

  /**
   * Beside each row written, three cells: its change set (0 outside change sets, else its number from
   * 1), its top-level part number and its member number in the change set (0 outside one).
   */
  places(): Int32Array {
    const start = this.scanner.placesAddress() >> 2
    return this.cells.subarray(start, start + this.scanner.rowCount() * 3)
  }

  clearRows(): void {
    this.scanner.clearRows()
  }

  get topLevelParts(): number {
    return this.scanner.topLevelPartCount()
  }

  get operations(): number {
    return this.scanner.operationCount()
  }

  get partsParsed(): number {
    return this.scanner.partsParsedCount()
  }

  /** The whole memory as a Buffer: row positions are addresses in it. Valid until the next append. */
  buffer(): Buffer {
    return Buffer.from(this.memory.buffer)
  }

  /** The data received, as a Buffer view (for the general parser to read). */
  data(): Buffer {
    return Buffer.from(this.memory.buffer, this.dataStart, this.received)
  }

  private begin(boundary: string, limits: IntakeLimits): void {
    const needle = Buffer.from(`\n--${boundary}`, 'latin1')
    this.bytes.set(needle, this.scanner.batchNeedleAddress())
    this.scanner.setup(needle.length, limits.maxOperations, limits.maxHeaderBytes, limits.maxHeaderCount, limits.maxPartHeaderLine)
    this.end = this.dataStart
  }

  /** Room for a body of `bytes` bytes. */
  private reserve(bytes: number): void {
    const needed = this.dataStart + bytes + SPARE_BYTES
    if (needed > this.bytes.length) this.grow(needed)
  }

  /** Grows the memory to at least `bytes` (in place: the views are made again, the data stays where it is). */
  private grow(bytes: number): void {
    const current = this.memory.buffer.byteLength
    this.memory.grow(Math.ceil((bytes - current) / PAGE_BYTES))
    this.bytes = new Uint8Array(this.memory.buffer)
    this.cells = new Int32Array(this.memory.buffer)
  }

  /** The character classes and known lines the module reads, from the definitions the general parser uses. */
  private writeTables(): void {
    const scanner = this.scanner
    const bytes = this.bytes
    const classes = scanner.classesAddress()
    for (let code = 0; code < 256; code++) bytes[classes + code] = characterClasses(code)
    // Token test of sixteen bytes at once: by low nibble, a bit for each high nibble that makes a token.
    const nibbles = scanner.tokenNibblesAddress()
    for (let code = 0; code < 128; code++) if (TOKEN_BYTE[code] === 1) bytes[nibbles + (code & 15)] |= 1 << (code >> 4)
    for (let high = 0; high < 8; high++) bytes[nibbles + 16 + high] = 1 << high
    const entryBytes = scanner.knownLineBytes()
    if (KNOWN_LINE_TEXTS.length > scanner.knownLineCapacity()) throw new Error('unreachable: more known lines than the scan module holds')
    KNOWN_LINE_TEXTS.forEach((text, index) => {
      const entry = scanner.knownLinesAddress() + index * entryBytes
      if (text.length < 16 || text.length > entryBytes - 16) throw new Error(`unreachable: the known line "${text}" does not fit the scan module's table`)
      bytes[entry] = text.length
      bytes[entry + 1] = text.indexOf(':')
      bytes[entry + 2] = /^content-type:/i.test(text) ? 1 : 0
      bytes.set(Buffer.from(text, 'latin1'), entry + 16)
    })
  }
}

// The class bits of wasm/multipart-scan.ts.
const TOKEN = 1
const FIELD_VALUE = 2
const URL_BYTE = 4
const BOUNDARY = 8
/** RFC 2046 §5.1.1 bchars, as content-type.ts's isValidBoundary allows them. */
const BOUNDARY_CHARACTER = /[0-9A-Za-z'()+_,\-./:=? ]/

function characterClasses(code: number): number {
  const token = TOKEN_BYTE[code] === 1
  let classes = token ? TOKEN : 0
  if (code === 0x09 || (code >= 0x20 && code !== 0x7f)) classes |= FIELD_VALUE
  if (code > 0x20 && code !== 0x7f) classes |= URL_BYTE
  if (token && BOUNDARY_CHARACTER.test(String.fromCharCode(code))) classes |= BOUNDARY
  return classes
}

function moduleAborted(): never {
  throw new Error('unreachable: the multipart scan module aborted')
}
