// The fast path of the multipart intake, in AssemblyScript compiled to WebAssembly (with SIMD).
//
// Why: a large batch is thousands of small parts, and every byte of every head has to be checked
// (control characters, header syntax, limits) before anything runs (decisions.md §7). A JavaScript
// loop over those bytes costs several times a native scan of the same bytes; here the same checks run
// as machine code, and the delimiter search reads sixteen bytes at a time.
//
// What it does: the intake copies each pushed chunk into this module's memory, right after the bytes
// before it, and calls `scan`. The scan finds the delimiters, reads every complete part (MIME head,
// then an embedded request or a change set with its own boundary), checks it, and writes one row per
// operation: the positions of its request line, headers, Content-ID and body in the memory, in the
// layout of the operation table (operation-table.ts), plus its change set and part numbers.
//
// What it does not do: explain. It accepts only what it can prove well formed and identical to what
// the general parser (the JavaScript one) would read; anything else, a malformation, an unusual but
// valid spelling, a limit reached, makes it answer FALLBACK, and the intake hands every byte received
// so far to the general parser, which reads the batch from its start and gives the verdict with its
// message. So this file never decides that a batch is bad, only that one is plainly good.
//
// Memory layout (addresses in bytes; multipart-scanner.ts writes the tables and the needles):
//   CLASSES        256 bytes of character classes (bit flags below)
//   TOKEN_NIBBLES  two 16-byte tables for the token test of sixteen bytes at once
//   BATCH_NEEDLE   `\n--` + the batch boundary
//   CHANGE_NEEDLE  `\n--` + the boundary of the change set being read
//   KNOWN_LINES    header lines every client writes (known-lines.ts): length, colon offset, text
//   ROWS, PLACES   the rows written and not yet taken: operation-table.ts cells, and beside each its
//                  change set, part and member numbers
//   DATA           the body as received; the byte before it is a line feed, so that a body that opens
//                  with its delimiter is found by the same search as any later one
//
// Nothing is read at or past the end of the data received: stale bytes of an earlier batch may lie
// there (the memories are reused, multipart-scanner.ts).

const CLASSES: i32 = 0x400
const BATCH_NEEDLE: i32 = 0x500
const CHANGE_NEEDLE: i32 = 0x580
/** Two 16-byte tables for the token test of sixteen bytes at once (notTokenMask). */
const TOKEN_NIBBLES: i32 = 0x5e0
const KNOWN_LINES: i32 = 0x600
const KNOWN_LINE_COUNT: i32 = 4
const KNOWN_LINE_BYTES: i32 = 64
const ROW_CAPACITY: i32 = 1024
/** Rows in the layout of operation-table.ts: `Cell.Width` 32-bit cells each. */
const ROWS: i32 = 0x1000
const ROW_CELLS: i32 = 13
/** Beside each row: its change set (0 outside one, else its number from 1), part and member numbers. */
const PLACES: i32 = ROWS + ROW_CAPACITY * ROW_CELLS * 4
const PLACE_CELLS: i32 = 3
const DATA: i32 = 0x20000

// Character classes, as multipart-scanner.ts fills them from http-chars.ts.
const TOKEN: u8 = 1 // tchar: a method or a header name
const FIELD_VALUE: u8 = 2 // a header value byte: tab, 0x20–0x7e, 0x80–0xff
const URL: u8 = 4 // a request-line URL byte: 0x21–0x7e, 0x80–0xff
const BOUNDARY: u8 = 8 // an unquoted boundary byte: tchar and RFC 2046 bchar both

// What `scan` answers.
const NEED_INPUT: i32 = 0
const ROWS_FULL: i32 = 1
const FALLBACK: i32 = 2
const COMPLETE: i32 = 3
// Internal to `scan`: a part's heads were read, or they have not all arrived.
const READ: i32 = 4
const PART_INCOMPLETE: i32 = 5

// What the readers of positions return instead of one.
const FALLBACK_CODE: i32 = -1
const INCOMPLETE: i32 = -2
const ROWS_FULL_CODE: i32 = -3

// What reading a delimiter line gives, besides the position where the part's content starts.
const LINE_INCOMPLETE: i32 = -1
const LINE_BAD: i32 = -2
const LINE_CLOSE: i32 = -3
/** Transport padding longer than this is left to the general parser (read once there, not rescanned). */
const MAX_PADDING: i32 = 256

const SPACE: i32 = 0x20
const TAB: i32 = 0x09
const CR: i32 = 0x0d
const LF: i32 = 0x0a
const HYPHEN: i32 = 0x2d
const COLON: i32 = 0x3a

// Limits (intake-limits.ts).
let maxOperations: i32 = 0
let maxHeaderBytes: i32 = 0
let maxHeaderCount: i32 = 0
let maxLine: i32 = 0
let batchNeedleLength: i32 = 0

// Where the scan stands between pushes.
/** Before the first delimiter: searching for it. */
const PREAMBLE: i32 = 0
/** A delimiter was found at `pendingDelimiter`; its line is read next. */
const DELIMITER: i32 = 1
/** A part starts at `partStart`; its heads (or its change set) are read next. */
const PART_HEAD: i32 = 2
/** A request's head was read; its body, from `bodyStart`, ends at the next delimiter. */
const BODY: i32 = 3
/** A change set was read; its epilogue ends at the next delimiter. */
const CHANGE_SET_EPILOGUE: i32 = 4
/** After the close delimiter. */
const EPILOGUE: i32 = 5
let phase: i32 = PREAMBLE
/** Where the search for the next delimiter goes on. */
let searchFrom: i32 = DATA - 1
let pendingDelimiter: i32 = 0
let partStart: i32 = 0
/** The data's end when the part at `partStart` was last found incomplete (0: not tried yet). */
let attemptEnd: i32 = 0

// The request whose head was read last: where its parts lie, for its row.
let requestStart: i32 = 0
let requestMethodEnd: i32 = 0
let requestUrlStart: i32 = 0
let requestUrlEnd: i32 = 0
let requestFieldsStart: i32 = 0
let requestHeadEnd: i32 = 0
let requestIdStart: i32 = -1
let requestIdEnd: i32 = -1
let bodyStart: i32 = 0
/** Whether the last findEither found the batch's delimiter (rather than the change set's). */
let foundBatchDelimiter: bool = false

// Counts.
let topLevelParts: i32 = 0
let operations: i32 = 0
let partsParsed: i32 = 0
let changeSets: i32 = 0
let rows: i32 = 0

// What the last part head read held: Content-Type and Content-ID values, blanks removed (-1: absent).
let contentTypeStart: i32 = -1
let contentTypeEnd: i32 = -1
let contentIdStart: i32 = -1
let contentIdEnd: i32 = -1

/** Starts a batch: the limits, and the length of the needle written at BATCH_NEEDLE. */
export function setup(needleLength: i32, operationLimit: i32, headerBytes: i32, headerCount: i32, lineLength: i32): void {
  batchNeedleLength = needleLength
  maxOperations = operationLimit
  maxHeaderBytes = headerBytes
  maxHeaderCount = headerCount
  maxLine = lineLength
  store<u8>(DATA - 1, LF)
  phase = PREAMBLE
  searchFrom = DATA - 1
  pendingDelimiter = 0
  partStart = 0
  attemptEnd = 0
  topLevelParts = 0
  operations = 0
  partsParsed = 0
  changeSets = 0
  rows = 0
}

// Where things lie, for multipart-scanner.ts.
export function classesAddress(): i32 {
  return CLASSES
}
export function tokenNibblesAddress(): i32 {
  return TOKEN_NIBBLES
}
export function batchNeedleAddress(): i32 {
  return BATCH_NEEDLE
}
export function knownLinesAddress(): i32 {
  return KNOWN_LINES
}
export function knownLineCapacity(): i32 {
  return KNOWN_LINE_COUNT
}
export function knownLineBytes(): i32 {
  return KNOWN_LINE_BYTES
}
export function rowsAddress(): i32 {
  return ROWS
}
export function rowCells(): i32 {
  return ROW_CELLS
}
export function placesAddress(): i32 {
  return PLACES
}
export function dataAddress(): i32 {
  return DATA
}

// The counts so far, and the rows written since the last clearRows.
export function rowCount(): i32 {
  return rows
}
export function clearRows(): void {
  rows = 0
}
export function topLevelPartCount(): i32 {
  return topLevelParts
}
export function operationCount(): i32 {
  return operations
}
export function partsParsedCount(): i32 {
  return partsParsed
}

/**
 * Reads what `DATA … end` holds beyond what was read before; `final` says no more bytes will come.
 * Answers NEED_INPUT (all complete parts read), ROWS_FULL (take the rows, clearRows, call again),
 * FALLBACK (leave this batch to the general parser) or COMPLETE (the close delimiter was read; what
 * follows is the epilogue, ignored).
 *
 * A part is read head first: its MIME head, then its request's head (or its change set), then the
 * search for the next delimiter goes on from the body. Heads are not searched for delimiters: a
 * delimiter starts a line with `--`, and a head line that starts so is left to the general parser.
 */
export function scan(end: i32, final: bool): i32 {
  while (true) {
    if (phase == EPILOGUE) return COMPLETE
    if (phase == DELIMITER) {
      const contentStart = delimiterLine(pendingDelimiter + batchNeedleLength, end)
      if (contentStart == LINE_INCOMPLETE) return final ? FALLBACK : NEED_INPUT
      if (contentStart == LINE_BAD) return FALLBACK
      if (contentStart == LINE_CLOSE) {
        phase = EPILOGUE
        return COMPLETE
      }
      if (++topLevelParts > maxOperations) return FALLBACK
      partStart = contentStart
      attemptEnd = 0
      phase = PART_HEAD
    }
    if (phase == PART_HEAD) {
      // A part whose heads (or change set) have not all arrived is read again from its start, but only
      // once the bytes after it have doubled: however a body is cut, each byte is read a few times at most.
      if (!final && attemptEnd > 0 && end - partStart < 2 * (attemptEnd - partStart)) return NEED_INPUT
      const status = part(partStart, end)
      if (status == PART_INCOMPLETE) {
        if (final) return FALLBACK
        attemptEnd = end
        return NEED_INPUT
      }
      // Rows full: taken, the part is read again at once.
      if (status == ROWS_FULL) attemptEnd = 0
      if (status != READ) return status
      continue
    }
    // PREAMBLE, BODY or CHANGE_SET_EPILOGUE: look for the next delimiter.
    const match = find(BATCH_NEEDLE, batchNeedleLength, searchFrom, end)
    if (match < 0) {
      const next = end - batchNeedleLength + 1
      if (next > searchFrom) searchFrom = next
      return final ? FALLBACK : NEED_INPUT
    }
    if (phase == BODY) {
      // The blank line's line feed began the delimiter: the general parser reads that head differently.
      if (match < bodyStart) return FALLBACK
      if (rows == ROW_CAPACITY) return ROWS_FULL
      writeRow(contentEnd(bodyStart, match), 0, 0)
    }
    pendingDelimiter = match
    searchFrom = match + batchNeedleLength
    phase = DELIMITER
  }
}

/** A part's content ends before the delimiter; the CR of a CRLF before it belongs to the delimiter. */
@inline
function contentEnd(start: i32, delimiter: i32): i32 {
  return delimiter > start && byteAt(delimiter - 1) == CR ? delimiter - 1 : delimiter
}

/**
 * The rest of a delimiter line from `position`: `--` (the close delimiter), or transport padding and a
 * line break. Returns where the part's content starts, or LINE_CLOSE, LINE_BAD, LINE_INCOMPLETE.
 */
function delimiterLine(position: i32, end: i32): i32 {
  if (position >= end) return LINE_INCOMPLETE
  if (byteAt(position) == HYPHEN) {
    if (position + 1 >= end) return LINE_INCOMPLETE
    return byteAt(position + 1) == HYPHEN ? LINE_CLOSE : LINE_BAD
  }
  const paddingEnd = position + MAX_PADDING
  for (; position < end; position++) {
    const code = byteAt(position)
    if (code == SPACE || code == TAB) {
      if (position == paddingEnd) return LINE_BAD
      continue
    }
    if (code == LF) return position + 1
    if (code != CR) return LINE_BAD
    if (position + 1 >= end) return LINE_INCOMPLETE
    return byteAt(position + 1) == LF ? position + 2 : LINE_BAD
  }
  return LINE_INCOMPLETE
}

/**
 * A top-level part from `start`: its MIME head, then an embedded request's head (the body is found by
 * the search for the next delimiter) or a whole change set. Answers READ, INCOMPLETE, ROWS_FULL or
 * FALLBACK; on READ the phase is BODY or CHANGE_SET_EPILOGUE.
 */
function part(start: i32, end: i32): i32 {
  const headEnd = partHead(start, end)
  if (headEnd < 0) return statusOf(headEnd)
  if (isApplicationHttp(contentTypeStart, contentTypeEnd)) {
    const idStart = contentIdStart
    const idEnd = contentIdEnd
    const body = requestHead(headEnd, end)
    if (body < 0) return statusOf(body)
    if (operations + 1 > maxOperations) return FALLBACK
    operations++
    partsParsed++
    requestIdStart = idStart
    requestIdEnd = idEnd
    bodyStart = body
    // The body's own search starts at the blank line's line feed: a body may open with the delimiter.
    searchFrom = body - 1
    phase = BODY
    return READ
  }
  const needleLength = changeSetNeedle(contentTypeStart, contentTypeEnd)
  if (needleLength < 0) return FALLBACK
  const after = changeSet(headEnd, end, needleLength)
  if (after < 0) return statusOf(after)
  searchFrom = after
  phase = CHANGE_SET_EPILOGUE
  return READ
}

/** The status `scan` answers for a code returned instead of a position. */
function statusOf(code: i32): i32 {
  if (code == INCOMPLETE) return PART_INCOMPLETE
  return code == ROWS_FULL_CODE ? ROWS_FULL : FALLBACK
}

/**
 * A change set's content from `start` (its part head ends just before): members up to the close
 * delimiter, each written as a row. Returns the position after the close delimiter (what follows, up to
 * the batch's next delimiter, is the change set's epilogue), or INCOMPLETE, ROWS_FULL_CODE or
 * FALLBACK_CODE (then nothing it counted or wrote stays).
 */
function changeSet(start: i32, end: i32, needleLength: i32): i32 {
  const operationsBefore = operations
  const parsedBefore = partsParsed
  const rowsBefore = rows
  const changeSetsBefore = changeSets
  const status = changeSetMembers(start, end, needleLength)
  if (status < 0) {
    operations = operationsBefore
    partsParsed = parsedBefore
    rows = rowsBefore
    changeSets = changeSetsBefore
    // A change set with more members than the rows can hold would never fit.
    if (status == ROWS_FULL_CODE && rowsBefore == 0) return FALLBACK_CODE
  }
  return status
}

function changeSetMembers(start: i32, end: i32, needleLength: i32): i32 {
  const group = ++changeSets
  let members = 0
  // The part head's line feed before `start` primes the search, as DATA - 1 does for the batch.
  let delimiter = findEither(needleLength, start - 1, end)
  if (delimiter < 0) return INCOMPLETE
  while (true) {
    // The batch's delimiter inside the change set cuts it short: the general parser says so.
    if (foundBatchDelimiter) return FALLBACK_CODE
    const contentStart = delimiterLine(delimiter + needleLength, end)
    if (contentStart == LINE_CLOSE) {
      if (members == 0) return FALLBACK_CODE
      partsParsed++
      return delimiter + needleLength + 2
    }
    if (contentStart == LINE_INCOMPLETE) return INCOMPLETE
    if (contentStart < 0) return FALLBACK_CODE
    members++
    const headEnd = partHead(contentStart, end)
    if (headEnd < 0) return headEnd
    if (!isApplicationHttp(contentTypeStart, contentTypeEnd)) return FALLBACK_CODE
    requestIdStart = contentIdStart
    requestIdEnd = contentIdEnd
    const body = requestHead(headEnd, end)
    if (body < 0) return body
    const next = findEither(needleLength, body - 1, end)
    if (next < 0) return INCOMPLETE
    if (next < body) return FALLBACK_CODE
    if (operations + 1 > maxOperations) return FALLBACK_CODE
    if (rows == ROW_CAPACITY) return ROWS_FULL_CODE
    operations++
    partsParsed++
    bodyStart = body
    writeRow(contentEnd(body, next), group, members)
    delimiter = next
  }
}

/**
 * An embedded request's head from `start`: `<METHOD> <url>[ HTTP/d.d]`, header lines, blank line. Keeps
 * where its parts lie for writeRow; returns where the body starts, or INCOMPLETE or FALLBACK_CODE.
 */
function requestHead(start: i32, end: i32): i32 {
  let position = start
  if (position + 1 >= end) return INCOMPLETE
  if (load<u16>(position) == 0x2d2d) return FALLBACK_CODE // `--`: maybe a delimiter
  while (position < end && isClass(position, TOKEN)) position++
  const methodEnd = position
  if (position >= end) return INCOMPLETE
  if (methodEnd == start || byteAt(position) != SPACE) return FALLBACK_CODE
  position++
  while (position < end && byteAt(position) == SPACE) position++
  const urlStart = position
  position = skipUrl(position, end)
  const urlEnd = position
  if (position >= end) return INCOMPLETE
  if (urlEnd == urlStart) return FALLBACK_CODE
  if (byteAt(position) == SPACE) {
    // ` HTTP/d.d`, exactly; any other spelling is left to the general parser.
    if (position + 9 > end) return INCOMPLETE
    if (load<u32>(position + 1) != 0x50545448 /* HTTP */ || byteAt(position + 5) != 0x2f) return FALLBACK_CODE
    if (!isDigit(byteAt(position + 6)) || byteAt(position + 7) != 0x2e || !isDigit(byteAt(position + 8))) return FALLBACK_CODE
    position += 9
  }
  const fieldsStart = lineBreakEnd(position, end)
  if (fieldsStart < 0) return fieldsStart
  const lineLength = position - start
  if (lineLength > maxLine) return FALLBACK_CODE
  const headEnd = fields(fieldsStart, end, lineLength + 2, 1, maxHeaderCount + 1, false)
  if (headEnd < 0) return headEnd
  requestStart = start
  requestMethodEnd = methodEnd
  requestUrlStart = urlStart
  requestUrlEnd = urlEnd
  requestFieldsStart = fieldsStart
  requestHeadEnd = headEnd
  return headEnd
}

/** The row of the request whose head was read last, its body ending at `bodyEnd`. */
function writeRow(bodyEnd: i32, group: i32, member: i32): void {
  const row = ROWS + rows * ROW_CELLS * 4
  store<i32>(row, 0) // Head: buffer 0, the memory
  store<i32>(row + 4, requestStart)
  store<i32>(row + 8, requestMethodEnd)
  store<i32>(row + 12, requestUrlStart)
  store<i32>(row + 16, requestUrlEnd)
  store<i32>(row + 20, requestFieldsStart)
  store<i32>(row + 24, requestHeadEnd)
  store<i32>(row + 28, requestIdStart < 0 ? -1 : 0) // PartHead
  store<i32>(row + 32, requestIdStart)
  store<i32>(row + 36, requestIdEnd)
  store<i32>(row + 40, bodyStart < bodyEnd ? 0 : -1) // Body
  store<i32>(row + 44, bodyStart)
  store<i32>(row + 48, bodyEnd)
  const place = PLACES + rows * PLACE_CELLS * 4
  store<i32>(place, group)
  store<i32>(place + 4, topLevelParts)
  store<i32>(place + 8, member)
  rows++
}

/** A MIME part head from `start`: returns where it ends (after its blank line), or INCOMPLETE or FALLBACK_CODE. */
function partHead(start: i32, end: i32): i32 {
  contentTypeStart = -1
  contentIdStart = -1
  contentIdEnd = -1
  return fields(start, end, 0, 0, maxHeaderCount, true)
}

/**
 * Header lines from `position` up to and including the blank line; returns the position after it,
 * INCOMPLETE when the data ends first, or FALLBACK_CODE for anything the general parser should judge:
 * a line that starts with `--` (it may be a delimiter), a folded line, a name that is not a token, a
 * byte that is not a field-value byte, a bare CR, a limit reached, and on a part head a second
 * Content-Type or Content-ID. `headBytes` and `lines` count what came before (a request line), as the
 * head scanner does.
 */
function fields(position: i32, end: i32, headBytes: i32, lines: i32, maxLines: i32, partHead: bool): i32 {
  while (true) {
    if (position + 1 >= end) return INCOMPLETE
    const first = byteAt(position)
    if (first == CR || first == LF) {
      const next = lineBreakEnd(position, end)
      if (next < 0) return next
      return headBytes + 2 > maxHeaderBytes ? FALLBACK_CODE : next
    }
    if (load<u16>(position) == 0x2d2d) return FALLBACK_CODE
    const lineStart = position
    let colon = -1
    let contentEnd = -1
    let next = -1
    const known = knownLineAt(position, end)
    if (known != 0) {
      contentEnd = position + <i32>load<u8>(known)
      colon = position + <i32>load<u8>(known, 1)
      next = lineBreakEnd(contentEnd, end)
      // Its name is known: a Content-Type line is recorded here, any other is neither of a part's two.
      if (partHead && load<u8>(known, 2) != 0) {
        if (contentTypeStart >= 0) return FALLBACK_CODE
        contentTypeStart = colon + 2
        contentTypeEnd = contentEnd
      }
    } else {
      contentEnd = fieldLine(position, end)
      if (contentEnd < 0) return contentEnd // folded lines start with a blank, which is not a token byte
      colon = lineColon
      next = lineBreakEnd(contentEnd, end)
      if (next < 0) return next
    }
    const lineLength = contentEnd - lineStart
    headBytes += lineLength + 2
    if (lineLength > maxLine || headBytes > maxHeaderBytes || ++lines > maxLines) return FALLBACK_CODE
    if (partHead && known == 0 && !partField(lineStart, colon, contentEnd)) return FALLBACK_CODE
    position = next
  }
}

/**
 * A header line every client writes, recognised whole: returns its entry in KNOWN_LINES, or 0. An entry
 * is the line's length (16 to 48), the offset of its colon, whether it is a Content-Type line, and from
 * byte 16 its text.
 */
@inline
function knownLineAt(position: i32, end: i32): i32 {
  if (position + 16 > end || load<u32>(position) != load<u32>(KNOWN_LINES + 16)) return 0
  const start = v128.load(position)
  // Bytes 8 to 11 tell the known lines apart (`Type`, `Tran`) before any vector is compared.
  const word = load<u32>(position + 8)
  for (let entry = KNOWN_LINES; entry < KNOWN_LINES + KNOWN_LINE_COUNT * KNOWN_LINE_BYTES; entry += KNOWN_LINE_BYTES) {
    const length = <i32>load<u8>(entry)
    if (length == 0) break
    if (word != load<u32>(entry + 24) || position + length >= end) continue
    const same = i8x16.eq(start, v128.load(entry + 16))
    const sameEnd = i8x16.eq(v128.load(position + length - 16), v128.load(entry + length))
    if (!i8x16.all_true(v128.and(same, sameEnd))) continue
    // The first and last sixteen bytes leave the middle of a longer line unread (byte 16 of
    // `Content-Transfer-Encoding: binary`), where any byte, a control character included, would pass.
    if (length > 32 && !i8x16.all_true(i8x16.eq(v128.load(position + 16), v128.load(entry + 32)))) continue
    const after = byteAt(position + length)
    if (after == LF || (after == CR && position + length + 1 < end && byteAt(position + length + 1) == LF)) return entry
  }
  return 0
}

/** Where the colon of the line fieldLine read last lies. */
let lineColon: i32 = 0

/**
 * A header line from `position` (not a known one): `Name: value`. Returns where its content ends (its
 * CR or LF, or another control character that lineBreakEnd refuses) and sets `lineColon`; FALLBACK_CODE
 * when the name is empty or not a token, INCOMPLETE when the data ends first. A line whose name ends
 * within sixteen bytes is read from one block: the colon, the token test and the first control byte
 * (tab aside) at once.
 */
@inline
function fieldLine(position: i32, end: i32): i32 {
  if (position + 16 <= end) {
    const block = v128.load(position)
    const colons = i8x16.bitmask(i8x16.eq(block, i8x16.splat(<i8>COLON)))
    if (colons != 0) {
      const nameLength = ctz(colons)
      if (nameLength == 0 || (notTokenMask(block) & ((1 << nameLength) - 1)) != 0) return FALLBACK_CODE
      lineColon = position + nameLength
      // Control bytes before the colon were refused as non-token bytes; the first one after it ends the line.
      const controls = controlMask(block) & (-2 << nameLength)
      if (controls != 0) return position + ctz(controls)
      return skipFieldValue(position + 16, end)
    }
  }
  const colon = nameEnd(position, end)
  if (colon < 0) return colon
  lineColon = colon
  return skipFieldValue(colon + 1, end)
}

/** Bit i set when byte i of `block` is a control character other than tab, or DEL. */
@inline
function controlMask(block: v128): i32 {
  const controls = v128.or(i8x16.lt_u(block, i8x16.splat(0x20)), i8x16.eq(block, i8x16.splat(0x7f)))
  return i8x16.bitmask(v128.andnot(controls, i8x16.eq(block, i8x16.splat(<i8>TAB))))
}

/** The first position from `position` whose byte is not a field-value byte (tab, 0x20–0x7e, 0x80–0xff), or `end`. */
@inline
function skipFieldValue(position: i32, end: i32): i32 {
  while (position + 16 <= end) {
    const controls = controlMask(v128.load(position))
    if (controls != 0) return position + ctz(controls)
    position += 16
  }
  while (position < end && isClass(position, FIELD_VALUE)) position++
  return position
}

/**
 * The position of the colon that ends the field name at `position`; FALLBACK_CODE when the name is empty
 * or not a token, INCOMPLETE when the data ends first.
 */
@inline
function nameEnd(position: i32, end: i32): i32 {
  if (position + 16 <= end) {
    const block = v128.load(position)
    const colons = i8x16.bitmask(i8x16.eq(block, i8x16.splat(<i8>COLON)))
    if (colons != 0) {
      const length = ctz(colons)
      if (length == 0 || (notTokenMask(block) & ((1 << length) - 1)) != 0) return FALLBACK_CODE
      return position + length
    }
  }
  const start = position
  while (position < end && isClass(position, TOKEN)) position++
  if (position >= end) return INCOMPLETE
  if (position == start || byteAt(position) != COLON) return FALLBACK_CODE
  return position
}

/**
 * Bit i set when byte i of `block` is not a token byte. A table lookup by low nibble gives the high
 * nibbles (2 to 7) that make a token with it, one bit each; a lookup by high nibble gives that bit.
 */
@inline
function notTokenMask(block: v128): i32 {
  const low = v128.and(block, i8x16.splat(0x0f))
  const high = i8x16.shr_u(block, 4)
  const byLow = i8x16.swizzle(v128.load(TOKEN_NIBBLES), low)
  const byHigh = i8x16.swizzle(v128.load(TOKEN_NIBBLES + 16), high)
  return i8x16.bitmask(i8x16.eq(v128.and(byLow, byHigh), i8x16.splat(0)))
}

/** Records Content-Type and Content-ID of a part head; false for a second one. */
function partField(lineStart: i32, colon: i32, contentEnd: i32): bool {
  const nameLength = colon - lineStart
  if (nameLength != 12 && nameLength != 10) return true
  let valueStart = colon + 1
  let valueEnd = contentEnd
  while (valueStart < valueEnd && isBlank(byteAt(valueStart))) valueStart++
  while (valueEnd > valueStart && isBlank(byteAt(valueEnd - 1))) valueEnd--
  // Names compare with bit 5 set (lower case): they hold letters and `-`, which has that bit already.
  if (nameLength == 12 && lowerIs(lineStart, 0x746e6f63, 0x2d746e65, 0x65707974) /* content-type */) {
    if (contentTypeStart >= 0) return false
    contentTypeStart = valueStart
    contentTypeEnd = valueEnd
  } else if (nameLength == 10 && lowerIs(lineStart, 0x746e6f63, 0x2d746e65, 0) && (load<u16>(lineStart + 8) | 0x2020) == 0x6469 /* content-id */) {
    if (contentIdStart >= 0 || contentIdEnd >= 0) return false
    // An empty Content-ID counts as absent; a second one, empty or not, is left to the general parser.
    contentIdEnd = valueEnd
    contentIdStart = valueEnd > valueStart ? valueStart : -1
  }
  return true
}

/** Whether the bytes at `at`, with bit 5 set, are the little-endian words `a`, `b` (and `c` unless 0). */
@inline
function lowerIs(at: i32, a: u32, b: u32, c: u32): bool {
  if ((load<u32>(at) | 0x20202020) != a || (load<u32>(at + 4) | 0x20202020) != b) return false
  return c == 0 || (load<u32>(at + 8) | 0x20202020) == c
}

/** `application/http`, compared as part-parser.ts does: each byte as written or with bit 5 set. */
function isApplicationHttp(start: i32, end: i32): bool {
  if (start < 0 || end - start != 16) return false
  return lowerIs(start, 0x6c707061, 0x74616369, 0x2f6e6f69) && (load<u32>(start + 12) | 0x20202020) == 0x70747468
}

/**
 * For a Content-Type `multipart/mixed; boundary=<token>` (the spelling every client writes), stores
 * `\n--<boundary>` at CHANGE_NEEDLE and returns its length; -1 for any other value.
 */
function changeSetNeedle(start: i32, end: i32): i32 {
  // `multipart/mixed`
  if (start < 0 || end - start < 15) return -1
  if (!lowerIs(start, 0x746c756d, 0x72617069, 0x696d2f74)) return -1
  if ((load<u16>(start + 12) | 0x2020) != 0x6578 || (byteAt(start + 14) | 0x20) != 0x64) return -1
  let position = start + 15
  while (position < end && isBlank(byteAt(position))) position++
  if (position >= end || byteAt(position) != 0x3b /* ; */) return -1
  position++
  while (position < end && isBlank(byteAt(position))) position++
  // `boundary=`
  if (position + 9 > end || !lowerIs(position, 0x6e756f62, 0x79726164, 0) || byteAt(position + 8) != 0x3d) return -1
  const boundaryStart = position + 9
  position = boundaryStart
  while (position < end && isClass(position, BOUNDARY)) position++
  const length = position - boundaryStart
  if (length == 0 || length > 70 || position != end) return -1
  store<u8>(CHANGE_NEEDLE, LF)
  store<u8>(CHANGE_NEEDLE + 1, HYPHEN)
  store<u8>(CHANGE_NEEDLE + 2, HYPHEN)
  memory.copy(CHANGE_NEEDLE + 3, boundaryStart, length)
  return length + 3
}

/**
 * After a line's content at `position`: the position after its CRLF or LF; FALLBACK_CODE for anything
 * else (a bare CR, a control character), INCOMPLETE when the data ends first.
 */
@inline
function lineBreakEnd(position: i32, end: i32): i32 {
  if (position >= end) return INCOMPLETE
  const code = byteAt(position)
  if (code == LF) return position + 1
  if (code != CR) return FALLBACK_CODE
  if (position + 1 >= end) return INCOMPLETE
  return byteAt(position + 1) == LF ? position + 2 : FALLBACK_CODE
}

/**
 * The first position from `position` before `end` whose byte is not a URL byte (0x21–0x7e, 0x80–0xff):
 * sixteen bytes at a time while they are printable ASCII, byte by byte past a byte over 0x7e.
 */
@inline
function skipUrl(position: i32, end: i32): i32 {
  const lowest = i8x16.splat(0x21)
  const highest = i8x16.splat(0x7e)
  while (position + 16 <= end) {
    const block = v128.load(position)
    const mask = i8x16.bitmask(v128.or(i8x16.lt_u(block, lowest), i8x16.gt_u(block, highest)))
    if (mask != 0) {
      position += ctz(mask)
      break
    }
    position += 16
  }
  while (position < end && isClass(position, URL)) position++
  return position
}

/**
 * The first position from `from` where the needle (`length` bytes at `needle`) lies wholly before
 * `end`, or -1. Sixteen candidate positions at a time: those whose first and last bytes both match
 * the needle's (the first is a line feed, the last a boundary character) are compared in full.
 */
function find(needle: i32, length: i32, from: i32, end: i32): i32 {
  const last = end - length
  const firstByte = byteAt(needle)
  const first = i8x16.splat(<i8>firstByte)
  const final = i8x16.splat(<i8>byteAt(needle + length - 1))
  let position = from
  while (position + 15 <= last) {
    const starts = i8x16.eq(v128.load(position), first)
    const ends = i8x16.eq(v128.load(position + length - 1), final)
    let mask = i8x16.bitmask(v128.and(starts, ends))
    while (mask != 0) {
      const at = position + ctz(mask)
      if (matchesAt(at, needle, length)) return at
      mask &= mask - 1
    }
    position += 16
  }
  for (; position <= last; position++) {
    if (byteAt(position) == firstByte && memory.compare(position + 1, needle + 1, length - 1) == 0) return position
  }
  return -1
}

/**
 * Inside a change set: the first position from `from` where either the change set's delimiter
 * (CHANGE_NEEDLE, `length` bytes) or the batch's lies wholly before `end`, or -1; sets
 * `foundBatchDelimiter`. Both needles start with a line feed, which no needle holds elsewhere, so two
 * matches never overlap; at one position the batch's wins, as its framing comes first in the general
 * parser. Until the longer needle fits, a later position cannot be ruled in: -1.
 */
function findEither(length: i32, from: i32, end: i32): i32 {
  const batchLength = batchNeedleLength
  const longest = length > batchLength ? length : batchLength
  const last = end - longest
  const first = i8x16.splat(<i8>LF)
  const changeSetFinal = i8x16.splat(<i8>byteAt(CHANGE_NEEDLE + length - 1))
  const batchFinal = i8x16.splat(<i8>byteAt(BATCH_NEEDLE + batchLength - 1))
  let position = from
  while (position + 15 <= last) {
    const starts = i8x16.eq(v128.load(position), first)
    const changeSetEnds = i8x16.eq(v128.load(position + length - 1), changeSetFinal)
    const batchEnds = i8x16.eq(v128.load(position + batchLength - 1), batchFinal)
    let mask = i8x16.bitmask(v128.and(starts, v128.or(changeSetEnds, batchEnds)))
    while (mask != 0) {
      const at = position + ctz(mask)
      if (isEitherDelimiter(at, length)) return at
      mask &= mask - 1
    }
    position += 16
  }
  for (; position <= last; position++) {
    if (byteAt(position) == LF && isEitherDelimiter(position, length)) return position
  }
  return -1
}

/** Whether a delimiter starts at `at`: the batch's (checked first) or the change set's; sets foundBatchDelimiter. */
@inline
function isEitherDelimiter(at: i32, length: i32): bool {
  if (matchesAt(at, BATCH_NEEDLE, batchNeedleLength)) {
    foundBatchDelimiter = true
    return true
  }
  foundBatchDelimiter = false
  return matchesAt(at, CHANGE_NEEDLE, length)
}

/** Whether the `length` bytes at `at` are the needle's, sixteen at a time (a needle is 4 to 73 bytes). */
@inline
function matchesAt(at: i32, needle: i32, length: i32): bool {
  if (length < 16) return memory.compare(at, needle, length) == 0
  let offset = 0
  for (; offset + 16 < length; offset += 16) {
    if (!i8x16.all_true(i8x16.eq(v128.load(at + offset), v128.load(needle + offset)))) return false
  }
  // The last sixteen bytes, overlapping the blocks before them.
  return i8x16.all_true(i8x16.eq(v128.load(at + length - 16), v128.load(needle + length - 16)))
}

@inline
function byteAt(position: i32): i32 {
  return <i32>load<u8>(position)
}

@inline
function isClass(position: i32, flag: u8): bool {
  return (load<u8>(CLASSES + byteAt(position)) & flag) != 0
}

@inline
function isBlank(code: i32): bool {
  return code == SPACE || code == TAB
}

@inline
function isDigit(code: i32): bool {
  return code >= 0x30 && code <= 0x39
}
