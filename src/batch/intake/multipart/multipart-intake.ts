// The streaming intake of a multipart `$batch` body (OData 4.0, service.md §2.3): one reader, in
// JavaScript (multipart-reader.ts). A WebAssembly scan once read ordinary batches first; on the
// ingest benchmark it saved under a tenth of a millisecond of a batch taking over 80 ms, so it was
// removed (docs/decisions.md, "Batch").

import type { BatchIntake } from '../batch-intake.js'
import { createMultipartReader } from './multipart-reader.js'
import { type IntakeLimits, resolveIntakeLimits } from '../intake-limits.js'

export interface MultipartIntakeOptions {
  /** The boundary of the batch's Content-Type (see boundaryFromContentType). */
  readonly boundary: string
  readonly limits?: Partial<IntakeLimits>
}

export function createMultipartIntake(options: MultipartIntakeOptions): BatchIntake {
  return createMultipartReader(options.boundary, resolveIntakeLimits(options.limits))
}
