// The limits the intake enforces while a `$batch` body streams in.
//
// The body comes from the public internet, so every structure that could grow with the input has a
// cap here: the body itself (service.md §8, decisions.md §7), the operation count, the heads of
// multipart parts, and the shape of JSON (stream-json and our own scanner are not designed for hostile
// input: depth, string and token caps keep both time and memory bounded).

export interface IntakeLimits {
  /** Largest body accepted, in bytes; more gives 413 BatchTooLarge (decisions.md §7: 1 MB = 1,048,576 bytes). */
  readonly maxBytes: number
  /** Most operations accepted, change-set members included (decisions.md §7); more gives 400 TooManyOperations. */
  readonly maxOperations: number
  /** Largest head of one part, in bytes: the MIME part headers, or the embedded request line plus its headers. */
  readonly maxHeaderBytes: number
  /** Most header fields in one head (MIME part headers, or the embedded request's headers). */
  readonly maxHeaderCount: number
  /** Longest single line of a head (a header line or the request line), in bytes, without its line break. */
  readonly maxPartHeaderLine: number
  /** Deepest nesting of JSON arrays and objects, the `{"requests":[…]}` envelope included. */
  readonly maxJsonDepth: number
  /** Longest JSON string value, in bytes as written (escapes counted as written). */
  readonly maxJsonStringLength: number
  /** Longest JSON member name, in bytes as written. */
  readonly maxJsonKeyLength: number
  /** Most JSON tokens (member names and values, containers included) in the whole body. */
  readonly maxJsonTokens: number
}

/** 10 MB of body and 100 operations are the service's settings (service.md §8); the rest are our caps. */
export const DEFAULT_INTAKE_LIMITS: IntakeLimits = Object.freeze({
  maxBytes: 10 * 1_048_576,
  maxOperations: 100,
  // A head is a request line plus a handful of headers; 32 KiB leaves room for long $filter URLs
  // (decisions.md §8 allows 8,000 characters per query option) while a flood of headers is refused.
  maxHeaderBytes: 32 * 1024,
  maxHeaderCount: 64,
  maxPartHeaderLine: 16 * 1024,
  // OData bodies nest a few levels (deep inserts, table parts); 64 is generous and still a hard stop.
  maxJsonDepth: 64,
  maxJsonStringLength: 1_048_576,
  // Property names are short; annotations such as `Nav@odata.bind` are the longest ones in practice.
  maxJsonKeyLength: 1024,
  // About one token per 5 bytes of a 10 MB body: a real batch of records stays far below this, while a
  // body of `[0,0,0,…]` cannot make us build millions of values.
  maxJsonTokens: 2_000_000,
})

/** The defaults with the given overrides; throws a plain Error for a nonsensical setting (a programming error). */
export function resolveIntakeLimits(overrides: Partial<IntakeLimits> = {}): IntakeLimits {
  const limits: IntakeLimits = { ...DEFAULT_INTAKE_LIMITS, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`intake limit ${name} must be a positive integer, got ${String(value)}`)
  }
  return Object.freeze(limits)
}
