// The streaming intake of a multipart `$batch` body (OData 4.0, service.md §2.3).
//
// Two readers, one outcome: the fast path (fast-multipart-intake.ts, a WebAssembly scan) reads batches
// written the way clients write them; anything else, a malformation or an unusual spelling, is handed
// to the general intake (general-multipart-intake.ts), which reads the batch from its start and gives
// the verdict. Either way the document, or the error, is the same (test/batch/intake proves it on every
// protocol case, corpus file and fuzzed body).

import type { BatchIntake } from './batch-intake.js'
import { FastMultipartIntake } from './fast-multipart-intake.js'
import { createGeneralMultipartIntake } from './general-multipart-intake.js'
import { type IntakeLimits, resolveIntakeLimits } from './intake-limits.js'

export interface MultipartIntakeOptions {
  /** The boundary of the batch's Content-Type (see boundaryFromContentType). */
  readonly boundary: string
  readonly limits?: Partial<IntakeLimits>
  /** `general` skips the fast path (to compare the two). */
  readonly reader?: 'fast' | 'general'
  /** The declared Content-Length, if any: the fast path sizes its memory for it at once. */
  readonly expectedBytes?: number
}

/** Positions in the fast path's memory are 32-bit: larger limits are read by the general intake. */
const LARGEST_FAST_BATCH = 1024 * 1_048_576

/** `BATCH_MULTIPART_READER=general` makes a process skip the fast path (the ingest benchmark compares the two). */
const processReader = process.env.BATCH_MULTIPART_READER === 'general' ? 'general' : 'fast'

export function createMultipartIntake(options: MultipartIntakeOptions): BatchIntake {
  const limits = resolveIntakeLimits(options.limits)
  if ((options.reader ?? processReader) === 'general' || limits.maxBytes > LARGEST_FAST_BATCH) return createGeneralMultipartIntake(options.boundary, limits)
  return new FastMultipartIntake(options.boundary, limits, options.expectedBytes)
}
