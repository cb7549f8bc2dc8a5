// Every value a client controls is bounded before it reaches `request_log`, so that no request can make the
// log's INSERT fail (the server runs in strict mode: a value too long for its column is an error, not a cut,
// and one bad row fails the whole multi-row statement). The column sizes are those of src/store/schema.ts.

/** `method` is `VARCHAR(10) CHARACTER SET ascii`. */
const METHOD_CHARACTERS = 10
/** `subject` and `profile` are `VARCHAR(100)`. */
const NAME_CHARACTERS = 100
/** `content_id` is `VARCHAR(200)`: a batch operation's `Content-ID` or JSON `id`, the client's text. */
const CONTENT_ID_CHARACTERS = 200
/** `error_code` is `VARCHAR(64) CHARACTER SET ascii`. */
const ERROR_CODE_CHARACTERS = 64
/** `url` is a TEXT column: 65,535 bytes. */
const URL_BYTES = 65_535

/** Marks a value that was cut: the reader of the log sees that it is not the whole of what was sent. */
const CUT_MARK = '~'
/** Marks a character an ASCII column cannot hold. */
const NOT_ASCII = '?'

/** Printable ASCII only; longer than the column: its start and the cut mark. */
function asciiField(value: string, characters: number): string {
  let text = value
  if (/[^\x20-\x7e]/.test(text)) text = text.replace(/[^\x20-\x7e]/g, NOT_ASCII)
  return text.length <= characters ? text : text.slice(0, characters - 1) + CUT_MARK
}

/**
 * At most `characters` characters. A JavaScript string's length counts UTF-16 units, never fewer than the
 * characters MySQL counts, so a cut by units always fits; a surrogate pair cut in two is stored as U+FFFD.
 */
function textField(value: string, characters: number): string {
  return value.length <= characters ? value : value.slice(0, characters - 1) + CUT_MARK
}

export function logMethod(method: string): string {
  return asciiField(method, METHOD_CHARACTERS)
}

export function logName(name: string): string {
  return textField(name, NAME_CHARACTERS)
}

export function logContentId(contentId: string | undefined): string | null {
  return contentId === undefined ? null : textField(contentId, CONTENT_ID_CHARACTERS)
}

export function logErrorCode(code: string | undefined): string | null {
  return code === undefined ? null : asciiField(code, ERROR_CODE_CHARACTERS)
}

/** A URL (already redacted, so no credential survives the cut) within the TEXT column's bytes. */
export function logUrl(url: string): string {
  if (Buffer.byteLength(url) <= URL_BYTES) return url
  // Three bytes per UTF-16 unit at most; a cut surrogate pair becomes U+FFFD, harmless in a log.
  return `${url.slice(0, Math.floor(URL_BYTES / 3) - 1)}…`
}
