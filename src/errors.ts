// The one error registry of the service (decisions.md §4).
//
// Every layer throws or returns an `ODataError`; one writer (`Responder.sendError`, src/http/responder.ts) turns it into
// `{"error":{"code","message","target","details"}}`. Clients and tests tell errors apart by `code`,
// never by message text. `docs/errors.md` lists the same registry; test/errors.test.ts keeps the two
// in step.
import { isCommitOutcomeUnknown, isDatabaseUnreachable, isLockWaitTimeout, isWriteConflict } from './database-failures.js'

export interface ErrorDefinition {
  readonly status: number
  /** What the code means, as documented for clients. */
  readonly description: string
}

export const ERROR_CODES = {
  // Requests and URLs
  BadRequest: { status: 400, description: 'The request is malformed in a way no more specific code covers.' },
  InvalidUrl: { status: 400, description: 'The resource path or a query string cannot be parsed (bad percent-encoding, bad key syntax).' },
  InvalidKey: { status: 400, description: 'The key predicate does not match the key of the entity set.' },
  InvalidLiteral: { status: 400, description: 'A literal (GUID, date-time, number, string) is malformed or out of range.' },
  InvalidQueryOption: { status: 400, description: 'A system query option is unknown, repeated, or has a bad value.' },
  InvalidFilter: {
    status: 400,
    description: '$filter does not parse or does not bind to the model; target names the option, the message gives the position.',
  },
  InvalidOrderBy: { status: 400, description: '$orderby does not parse or names an unknown property.' },
  InvalidSelect: { status: 400, description: '$select names an unknown property.' },
  InvalidExpand: { status: 400, description: '$expand does not parse or names an unknown navigation property.' },
  InvalidApply: { status: 400, description: '$apply does not parse or does not bind.' },
  UnknownProperty: {
    status: 400,
    description:
      'A name inside a write body is not a property of the type (details list each, with its path), unless the configuration reads bodies leniently.',
  },
  ExpressionTooComplex: {
    status: 400,
    description: 'An expression limit of decisions.md §8 is exceeded; the message states the actual figure and the limit.',
  },
  SearchNotSupported: { status: 400, description: '$search is not supported by this service.' },
  SurrogateKeyNotFilterable: { status: 400, description: 'SurrogateKey takes no part in $filter, $orderby or $apply.' },
  ValueOutOfRange: {
    status: 400,
    description:
      'A value computed by an expression is out of the range the database can hold (an arithmetic overflow, a date beyond 9999).',
  },
  DivisionByZero: { status: 400, description: 'An expression divides by zero (div, divby or mod) for a row the request reads.' },
  InvalidSkipToken: {
    status: 400,
    description: '$skiptoken was not issued by this service for this query (another set, $apply or $orderby, or altered).',
  },
  InvalidDeltaLink: {
    status: 400,
    description:
      'A delta link of this service is used for another set, other $filter or $select, by another subject, or with options a delta does not take.',
  },
  DeltaLinkGone: {
    status: 410,
    description:
      'The delta link is unknown (not signed by this database, or altered) or expired (the changes since its position are no longer kept): read the set again with Prefer: odata.track-changes.',
  },
  InvalidParameter: { status: 400, description: 'A function parameter is unknown, duplicated, unnamed or has a bad value.' },
  NotFilledInResult: {
    status: 400,
    description: 'The request names a column the virtual table does not fill (another periodicity, a resource in Condition).',
  },
  InvalidBody: { status: 400, description: 'The request body is not valid JSON or not an object of the expected shape.' },
  InvalidSetting: {
    status: 400,
    description: 'A settings change names an unknown setting or a value outside its range; nothing was changed.',
  },
  InvalidValue: { status: 400, description: 'A property value has the wrong type or is out of range (length, precision, scale).' },
  DeletionMarked: { status: 400, description: 'A document marked for deletion cannot be posted.' },
  // Authentication and authorisation
  Unauthorized: { status: 401, description: 'Credentials are missing or unknown.' },
  Forbidden: { status: 403, description: "The subject's profile may not read or write the target (or administer the settings)." },
  OriginNotAllowed: {
    status: 403,
    description: "A request that changes state comes from a browser page of an origin neither in the CORS list nor the service's own.",
  },
  // Resources
  NotFound: { status: 404, description: 'No resource at this path (unknown set, function, or key without an entity).' },
  MethodNotAllowed: { status: 405, description: 'The resource does not support the method; Allow lists those it does.' },
  NotAcceptable: { status: 406, description: 'The requested format is not supported.' },
  Conflict: { status: 409, description: 'An entity with this key exists already.' },
  PreconditionFailed: { status: 412, description: 'If-Match or If-None-Match does not hold.' },
  PayloadTooLarge: { status: 413, description: 'The request body (outside $batch) exceeds the size the service accepts.' },
  UnsupportedMediaType: { status: 415, description: 'The Content-Type of the body is not supported.' },
  HeaderTooLarge: {
    status: 431,
    description: 'The request head (request line and headers) passes the bound (64 KiB); the connection is closed.',
  },
  // Batch (service.md §4.4, §7, §8; decisions.md §7)
  BatchTooLarge: { status: 413, description: 'The batch body exceeds maxBatchSizeMB.' },
  TooManyOperations: {
    status: 400,
    description: 'The batch has more operations than the setting or the profile allows; the message gives the actual figure.',
  },
  BatchMalformed: {
    status: 400,
    description: 'The batch body is corrupt (boundaries, part headers, request lines, JSON) or has no operations.',
  },
  BatchVersionTooLow: { status: 400, description: 'A JSON batch was sent with OData-MaxVersion below 4.01.' },
  GetInChangeSet: { status: 400, description: 'A GET stands inside a change set; the whole batch is refused before anything runs.' },
  UnsafeOperationUrl: {
    status: 400,
    description: 'An operation URL has dot segments (in any spelling), another host or another service root.',
  },
  ReferenceOutOfScope: {
    status: 400,
    description: 'A $<id> reference names an operation outside its valid scope or one that created nothing.',
  },
  DuplicateOperationId: { status: 400, description: 'Two operations of one batch share a Content-ID or id.' },
  FailedDependency: {
    status: 424,
    description:
      'The operation was not applied because another operation of its atomic group or dependency failed; when that failure is the COMMIT of the group losing its connection, whether the group was applied is unknown, and the message says so.',
  },
  RateLimited: {
    status: 429,
    description: "The profile's rate rule does not cover the request (a batch counts each operation); Retry-After says when to retry.",
  },
  NotImplemented: { status: 501, description: 'The request is valid OData but this service does not implement it.' },
  BatchNotSupported: { status: 501, description: '$batch is not available on the reference flavour.' },
  TransferCodingNotSupported: {
    status: 501,
    description: 'Transfer-Encoding names a coding other than chunked alone (gzip, chunked); the connection is closed.',
  },
  // Server side
  InternalError: { status: 500, description: 'An unexpected failure; nothing is promised about partial effects outside transactions.' },
  LogWriteFailed: {
    status: 500,
    description: 'The request log could not be written after the batch ran; details list the executed operations.',
  },
  ServiceUnavailable: {
    status: 503,
    description:
      'The database is not reachable; nothing was written, unless the connection was lost during the commit (retry with Repeatability-Request-ID to apply it once). Retry-After says when to retry.',
  },
  ShuttingDown: {
    status: 503,
    description: 'The process is stopping (a graceful stop): the request was not run; send it again on a new connection.',
  },
  LockTimeout: {
    status: 503,
    description:
      'Rows the request writes stayed locked by other writes past the lock wait timeout; nothing was written. Retry-After says when to retry.',
  },
  WriteConflict: {
    status: 503,
    description:
      'The write kept conflicting with concurrent writes (deadlock, or a lost certification on a cluster) after the service retried it; nothing was written. Retry-After says when to retry.',
  },
} as const satisfies Record<string, ErrorDefinition>

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorDetail {
  readonly code: string
  readonly message: string
  readonly target?: string
}

/** An error that carries everything needed to answer it: status, stable code, message, target. */
export class ODataError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly target: string | undefined
  readonly details: readonly ErrorDetail[]
  /** Extra response headers (Allow for 405, Retry-After for 429, WWW-Authenticate for 401). */
  readonly headers: Readonly<Record<string, string>>
  /** The write may have been applied: its COMMIT lost its connection (a batch's other answers say so too). */
  readonly outcomeUnknown: boolean

  constructor(
    code: ErrorCode,
    message: string,
    options: { target?: string; details?: readonly ErrorDetail[]; headers?: Record<string, string>; outcomeUnknown?: boolean } = {},
  ) {
    super(message)
    this.name = 'ODataError'
    this.code = code
    this.status = ERROR_CODES[code].status
    this.target = options.target
    this.details = options.details ?? []
    this.headers = options.headers ?? {}
    this.outcomeUnknown = options.outcomeUnknown === true
  }
}

export function isODataError(value: unknown): value is ODataError {
  return value instanceof ODataError
}

/** The error body of decisions.md §4, as a plain object ready for JSON.stringify. */
export function errorBody(error: ODataError): { error: Record<string, unknown> } {
  const body: Record<string, unknown> = { code: error.code, message: error.message }
  if (error.target !== undefined) body.target = error.target
  if (error.details.length > 0) body.details = error.details
  return { error: body }
}

/**
 * Any thrown value as an ODataError: a database that is unreachable, busy past its lock wait timeout, or
 * whose write still conflicted after the service's retries is a 503 to retry (src/database-failures.ts); other failures become InternalError without
 * leaking internals.
 */
export function toODataError(value: unknown): ODataError {
  if (value instanceof ODataError) return value
  if (isLockWaitTimeout(value)) {
    return new ODataError('LockTimeout', 'Rows this request writes stayed locked by other writes too long; nothing was written. Retry.', {
      headers: { 'Retry-After': '1' },
    })
  }
  if (isWriteConflict(value)) {
    return new ODataError('WriteConflict', 'The write kept conflicting with concurrent writes after retries; nothing was written. Retry.', {
      headers: { 'Retry-After': '1' },
    })
  }
  if (isCommitOutcomeUnknown(value)) {
    return new ODataError(
      'ServiceUnavailable',
      'The connection to the database was lost during the COMMIT: whether the write was applied is unknown. Repeat it with If-None-Match: * or Repeatability-Request-ID, which applies it once.',
      { headers: { 'Retry-After': '5' }, outcomeUnknown: true },
    )
  }
  if (isDatabaseUnreachable(value)) {
    return new ODataError('ServiceUnavailable', 'The database is not reachable; nothing was written. Retry later.', {
      headers: { 'Retry-After': '5' },
    })
  }
  return new ODataError('InternalError', 'An internal error occurred.')
}
