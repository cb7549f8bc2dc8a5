// streamsearch in the place of Buffer.indexOf inside the multipart reader, for perf/batch-intake.bench.ts:
// the reader's DelimiterScanner gets its delimiter search from a streamsearch instance (a Boyer–Moore–
// Horspool search in JavaScript, as busboy uses it), with everything else the same: the needle
// `\n--boundary` primed with a line feed, the carriage return before a delimiter given to the
// delimiter, and ranges of kept input reported where they lie. The bench reads the same body with both
// searches, checks that the documents agree and compares the times.
import StreamSearch from 'streamsearch'
import { type DelimiterSink, DelimiterScanner, type InputLifetime } from '../../src/batch/intake/multipart/delimiter-scanner.js'

const CARRIAGE_RETURN = 0x0d
const PRIME = Buffer.from('\n', 'latin1')
const HELD_CARRIAGE_RETURN = Buffer.from('\r', 'latin1')

interface SearchState {
  search: StreamSearch
  /** The priming line feed has not been matched or reported yet: it is not data. */
  primed: boolean
  carriageReturnHeld: boolean
  carriageReturnSource: Buffer
  carriageReturnAt: number
}

/** What the patched methods read of a DelimiterScanner: its sink and the lifetime of its input. */
interface ScannerInside {
  readonly sink: DelimiterSink
  readonly input: InputLifetime
}

const states = new WeakMap<DelimiterScanner, SearchState>()
const original = { begin: DelimiterScanner.prototype.begin, push: DelimiterScanner.prototype.push, flush: DelimiterScanner.prototype.flush }

function reportData(scanner: DelimiterScanner, state: SearchState, data: Buffer, start: number, end: number, safe: boolean): void {
  if (end <= start) return
  const { sink, input } = scanner as unknown as ScannerInside
  if (input.retaining && !safe) {
    // streamsearch's own look-behind buffer: kept input must stay valid, so the bytes get a copy.
    data = Buffer.from(data.subarray(start, end))
    end -= start
    start = 0
  }
  if (state.carriageReturnHeld) {
    state.carriageReturnHeld = false
    sink.onData(state.carriageReturnSource, state.carriageReturnAt, state.carriageReturnAt + 1)
  }
  if (data[end - 1] === CARRIAGE_RETURN) {
    end--
    state.carriageReturnHeld = true
    state.carriageReturnSource = input.retaining ? data : HELD_CARRIAGE_RETURN
    state.carriageReturnAt = input.retaining ? end : 0
    if (end === start) return
  }
  sink.onData(data, start, end)
}

function begin(this: DelimiterScanner, boundary: string): void {
  const state: SearchState = {
    search: undefined as unknown as StreamSearch,
    primed: true,
    carriageReturnHeld: false,
    carriageReturnSource: HELD_CARRIAGE_RETURN,
    carriageReturnAt: 0,
  }
  state.search = new StreamSearch(Buffer.from(`\n--${boundary}`, 'latin1'), (isMatch, data, start, end, isSafeData) => {
    if (data !== undefined && end > start) {
      if (state.primed) {
        start++
        state.primed = false
      }
      reportData(this, state, data, start, end, isSafeData === true)
    }
    if (isMatch) {
      state.primed = false
      state.carriageReturnHeld = false
      ;(this as unknown as ScannerInside).sink.onDelimiter()
    }
  })
  states.set(this, state)
  state.search.push(PRIME)
}

function push(this: DelimiterScanner, data: Buffer, start: number, end: number): void {
  if (end <= start) return
  states.get(this)!.search.push(start === 0 && end === data.length ? data : data.subarray(start, end))
}

function flush(this: DelimiterScanner): void {
  const state = states.get(this)!
  state.search.destroy()
  if (state.carriageReturnHeld) {
    state.carriageReturnHeld = false
    ;(this as unknown as ScannerInside).sink.onData(state.carriageReturnSource, state.carriageReturnAt, state.carriageReturnAt + 1)
  }
}

/** Makes every DelimiterScanner made from now on search with streamsearch (true) or Buffer.indexOf (false). */
export function searchDelimitersWithStreamSearch(on: boolean): void {
  const methods = on ? { begin, push, flush } : original
  DelimiterScanner.prototype.begin = methods.begin
  DelimiterScanner.prototype.push = methods.push
  DelimiterScanner.prototype.flush = methods.flush
}
