// The streaming intake of `$batch` bodies: bytes in, a BatchDocument out (src/batch/intake).
// README.md explains the design and how the HTTP layer drives it; it needs only what is exported here.

export type {
  BatchChangeSet,
  BatchDocument,
  BatchFormat,
  BatchItem,
  BatchOperation,
  JsonValue,
  OperationBody,
  OperationHeaders,
} from './batch-document.js'
export type { BatchIntake, IntakeProgress } from './batch-intake.js'
export { boundaryFromContentType, parseContentType } from './content-type.js'
export { countTopLevelParts } from './multipart/count-top-level-parts.js'
export { createBatchIntake } from './create-batch-intake.js'
export { DEFAULT_INTAKE_LIMITS, type IntakeLimits, resolveIntakeLimits } from './intake-limits.js'
export { createJsonIntake, type JsonIntakeOptions } from './json/json-intake.js'
export { createMultipartIntake, type MultipartIntakeOptions } from './multipart/multipart-intake.js'
