// The push interface both intakes implement, and the figures they expose while a body streams in.

import type { BatchDocument, BatchFormat } from './batch-document.js'

export interface IntakeProgress {
  /** Body bytes pushed so far. */
  readonly bytesReceived: number
  /**
   * Bytes copied out of the pushed chunks and still held. Multipart: the copies of the chunks the
   * document points into, plus the few heads and bodies joined because they spanned two of those
   * copies; JSON: items awaiting parse. About `bytesReceived` at most; the fixed scratch buffers of
   * the intake come on top.
   */
  readonly retainedBytes: number
  /** Multipart: parts of the batch itself (a change set counts once); JSON: request items seen. */
  readonly topLevelParts: number
  /** Operations seen so far, change-set members included (decisions.md §7 counts them all). */
  readonly operations: number
  /** Multipart parts whose headers were read (0 for JSON): the proof that counting did not parse. */
  readonly partsParsed: number
  /**
   * True once `end()` is certain to throw whatever bytes follow (too many operations, a corrupt part).
   * Reading on is cheap and gives the exact figure decisions.md §7 asks for; a caller that cannot
   * read on may stop and call `end()`, which then reports what it has seen.
   */
  readonly failureCertain: boolean
}

export interface BatchIntake {
  readonly format: BatchFormat
  /**
   * Feeds the next chunk. The chunk is only read during the call: whatever is kept is copied, so a
   * uWS `onData` ArrayBuffer may be passed as it is (`new Uint8Array(arrayBuffer)`).
   *
   * Throws an `ODataError` only when the answer can no longer change: `BatchTooLarge` at the chunk
   * that passes `maxBytes`; for JSON also `BatchMalformed` at the first corrupt byte. After a throw
   * the intake is dead: every later call throws the same error.
   */
  push(chunk: Uint8Array): void
  /** Declares the body complete; returns the document or throws the `ODataError` that answers the batch. */
  end(): BatchDocument
  readonly progress: IntakeProgress
}
