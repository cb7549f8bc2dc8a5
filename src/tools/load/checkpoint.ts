// The checkpoint file: which rows of which input the service has answered for good (created, found
// present, or refused), and which were sent without an answer yet. Lines are appended and written
// before the loader goes on (a `kill -9` loses nothing written), so the same command resumes where
// the acknowledged rows end; rows sent but unacknowledged are the uncertain ones, looked up before
// they are sent again.
//
//   S <TAB> source <TAB> 101-150      sent
//   R <TAB> source <TAB> 103          refused (written to the reject file), before its A line
//   A <TAB> source <TAB> 101-150      answered
//
// The R lines let a resumed run say how many of the rows an earlier run answered were refused, so that its
// summary does not count them among the rows written.
import { closeSync, existsSync, openSync, readSync, writeSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { InputError } from './input-source.js'
import { RangeSet } from './range-set.js'

const CHUNK_BYTES = 1024 * 1024
/** A checkpoint line names a source and the ranges of one change set: far shorter than this. */
const MAX_LINE_BYTES = 16 * 1024 * 1024

/** The file's lines, read a chunk at a time: memory is bounded by the longest line, not by the file. */
function* fileLines(path: string): Iterable<string> {
  const fd = openSync(path, 'r')
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    // A character cut between two chunks is put together again.
    const decoder = new StringDecoder('utf8')
    let rest = ''
    for (let at = 0; ; ) {
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, at)
      if (n === 0) break
      at += n
      const lines = (rest + decoder.write(chunk.subarray(0, n))).split('\n')
      rest = lines.pop()!
      if (rest.length > MAX_LINE_BYTES)
        throw new InputError(`the checkpoint ${path} is not a checkpoint file (a line of more than ${MAX_LINE_BYTES} bytes)`)
      yield* lines
    }
    if (rest !== '') yield rest
  } finally {
    closeSync(fd)
  }
}

interface SourceState {
  readonly sent: RangeSet
  readonly done: RangeSet
  readonly refused: RangeSet
}

export class Checkpoint {
  private readonly sources = new Map<string, SourceState>()
  private readonly fd: number
  /** Whether the file held rows when the load began (a resumed load). */
  readonly resumed: boolean

  constructor(readonly path: string) {
    if (existsSync(path)) {
      for (const line of fileLines(path)) {
        const [kind, source, ranges] = line.split('\t')
        // A line cut by a crash has no third field, or a range cut short: a cut range only loses the
        // last rows' mark, and they are sent again as uncertain.
        if ((kind !== 'S' && kind !== 'A' && kind !== 'R') || source === undefined || ranges === undefined) continue
        const state = this.state(source)
        const rows = RangeSet.parse(ranges.replace(/[^0-9,-]/g, ''))
        const into = kind === 'S' ? state.sent : kind === 'A' ? state.done : state.refused
        for (const [from, to] of rows.entries()) into.add(from, to)
      }
    }
    this.resumed = [...this.sources.values()].some((s) => s.sent.size > 0)
    this.fd = openSync(path, 'a')
  }

  private state(source: string): SourceState {
    let state = this.sources.get(source)
    if (!state) this.sources.set(source, (state = { sent: new RangeSet(), done: new RangeSet(), refused: new RangeSet() }))
    return state
  }

  done(source: string, row: number): boolean {
    return this.state(source).done.has(row)
  }

  /** Answered by a refusal: the row is in the reject file. */
  refused(source: string, row: number): boolean {
    return this.state(source).refused.has(row)
  }

  /** Sent by an earlier run (or earlier in this one) and not answered: it may be in the service. */
  uncertain(source: string, row: number): boolean {
    const state = this.state(source)
    return state.sent.has(row) && !state.done.has(row)
  }

  /** Sent by an earlier run, answered or not (stdin, whose rows are looked up rather than skipped). */
  wasSent(source: string, row: number): boolean {
    return this.state(source).sent.has(row)
  }

  markSent(source: string, rows: readonly number[]): void {
    this.write('S', source, rows, this.state(source).sent)
  }

  /** Written after the reject file's line and before the row's A line. */
  markRefused(source: string, rows: readonly number[]): void {
    this.write('R', source, rows, this.state(source).refused)
  }

  markDone(source: string, rows: readonly number[]): void {
    this.write('A', source, rows, this.state(source).done)
  }

  private write(kind: string, source: string, rows: readonly number[], into: RangeSet): void {
    if (rows.length === 0) return
    const set = new RangeSet()
    for (const row of rows) set.add(row)
    for (const [from, to] of set.entries()) into.add(from, to)
    writeSync(this.fd, `${kind}\t${source}\t${set.toString()}\n`)
  }

  close(): void {
    closeSync(this.fd)
  }
}
