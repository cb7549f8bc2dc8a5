// Picks the intake for a `$batch` request by its Content-Type (service.md §4.4): `multipart/mixed`
// with a boundary (OData 4.0) or `application/json` (OData 4.01). Anything else is 415
// (service.md §7). Called before the first body byte is read.

import { ODataError } from '../../errors.js'
import type { BatchIntake } from './batch-intake.js'
import { boundaryOf, parseContentType } from './content-type.js'
import type { IntakeLimits } from './intake-limits.js'
import { createJsonIntake } from './json/json-intake.js'
import { createMultipartIntake } from './multipart/multipart-intake.js'

/**
 * Throws UnsupportedMediaType (415) for another media type, BatchMalformed for a bad boundary.
 * `_expectedBytes` is the declared Content-Length, if any: no reader sizes memory by it now, the
 * HTTP layer still passes it.
 */
export function createBatchIntake(
  contentType: string | undefined,
  limits: Partial<IntakeLimits> = {},
  _expectedBytes?: number,
): BatchIntake {
  const parsed = contentType === undefined ? undefined : parseContentType(contentType)
  if (parsed?.mediaType === 'multipart/mixed') return createMultipartIntake({ boundary: boundaryOf(parsed, contentType!), limits })
  if (parsed?.mediaType === 'application/json') return createJsonIntake({ limits })
  throw new ODataError(
    'UnsupportedMediaType',
    `A batch is sent as multipart/mixed or application/json, not as ${contentType === undefined ? 'a body without Content-Type' : `"${contentType}"`}.`,
  )
}
