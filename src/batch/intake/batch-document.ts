// What the intake hands to the planner: one shape for both wire formats.
//
// A multipart batch (OData 4.0) and a JSON batch (OData 4.01) carry the same things: operations in
// order, some of them grouped into an atomic unit (a change set in multipart, an atomicity group in
// JSON). The planner reads this document and never needs to know which format came in; only the
// response writer looks at `format`, to answer in kind.

export type BatchFormat = 'multipart' | 'json'

/** A JSON value as `JSON.parse` builds it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [name: string]: JsonValue }

/**
 * Header names lower-cased, values as written (surrounding blanks removed; a repeated header joined
 * with ", " as HTTP allows). A Map: no name, `__proto__` included, can reach or shadow a prototype,
 * and, unlike a null-prototype object, it stays fast with names decoded from the wire.
 */
export type OperationHeaders = ReadonlyMap<string, string>

/**
 * The body of one operation.
 * - `bytes` (multipart): exactly the octets between the blank line after the embedded headers and the
 *   line break that belongs to the next delimiter; framed by the boundary, never by `Content-Length`.
 * - `json` (JSON batch): the parsed `body` member. Objects are ordinary objects built by `JSON.parse`,
 *   which defines every member as an own data property: a `"__proto__"` member stays a member.
 */
export type OperationBody = { readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'json'; readonly value: JsonValue }

export interface BatchOperation {
  readonly kind: 'operation'
  /** 0-based position among all operations of the batch, in document order (for error reports). */
  readonly index: number
  /** Upper-cased (JSON batches may write `get`, `patch`, …). */
  readonly method: string
  /** As written: relative to the service root, absolute, or host-root-relative (service.md §4.4 rule 1). */
  readonly url: string
  readonly headers: OperationHeaders
  /** Absent when the operation has none (a multipart part with nothing after its blank line, JSON `null`). */
  readonly body: OperationBody | undefined
  /**
   * The name `$<id>` references use, or undefined. Multipart: the part's `Content-ID`, or, as Olingo V2
   * clients write it, the embedded request's `Content-ID` header. JSON: the request's `id`.
   */
  readonly id: string | undefined
  /** JSON: the `atomicityGroup` member. Multipart change sets have no name: undefined. */
  readonly atomicityGroup: string | undefined
  /** JSON: the `dependsOn` member; multipart: empty. */
  readonly dependsOn: readonly string[]
}

/** Operations that run as one transaction (service.md §4.4 rule 3): a change set or an atomicity group. */
export interface BatchChangeSet {
  readonly kind: 'changeSet'
  /** The JSON atomicity group's name; undefined for a multipart change set. */
  readonly atomicityGroup: string | undefined
  /** At least one. */
  readonly operations: readonly BatchOperation[]
}

export type BatchItem = BatchOperation | BatchChangeSet

export interface BatchDocument {
  readonly format: BatchFormat
  /** Top-level items in document order. */
  readonly items: readonly BatchItem[]
  /** Every operation in document order, change-set members included; `operations[i].index === i`. */
  readonly operations: readonly BatchOperation[]
  /** Size of the body that was read. */
  readonly byteLength: number
  /**
   * Called once the batch has run and its response is written. Neither reader keeps memory for reuse
   * now, so it frees nothing; reading an operation's method, URL, headers, id or body afterwards is
   * still a programming error, so that a reader may reuse memory again without changing its callers.
   */
  release(): void
}

/** Adds a header; a repeated name is joined with ", " (RFC 9110 §5.3). */
export function addHeader(headers: Map<string, string>, lowerCaseName: string, value: string): void {
  const previous = headers.get(lowerCaseName)
  headers.set(lowerCaseName, previous === undefined ? value : `${previous}, ${value}`)
}
