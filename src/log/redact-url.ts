// What the request log stores of a URL: no credential, whatever its spelling (decisions.md §8). Masked by
// what authenticates rather than by one spelling of it:
// - the `token` parameter, its name compared after percent-decoding (`%74oken=`, `TOKEN=`);
// - the segment after every `t` segment, however the `t` and the slashes around it are written
//   (`/t/<token>/`, a second `/t/…/`, `%2Ft%2F`, `..` detours that reach one);
// - userinfo of an absolute or scheme-relative URL (`http://user:pass@host/…`), as batch operations may carry,
//   however it is spelt (leading whitespace, backslashes, no slashes);
// - every configured token, anywhere, literal or percent-encoded character by character.
const MASK = '***'

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

/**
 * Userinfo, masked whatever the shape of the URL around it, since what is stored is the URL as received:
 * after a scheme at the start, leading whitespace or controls before it, and any number of slashes or
 * backslashes after it (URL parsers read `http:\\u:p@h` and `http:u:p@h` as `http://u:p@h`); and after two
 * slashes or backslashes anywhere (`//u:p@h`). The authority runs to the next separator; its last `@` ends
 * the userinfo.
 */
const USERINFO = /(^[\s\p{C}]*[a-z][a-z0-9+.-]*:(?:[/\\]|%2f|%5c)*|(?:[/\\]|%2f|%5c){2})[^/\\?#]*@/giu

/** `http://user:pass@host/…`, `//user:pass@host/…` and their other spellings → `http://***@host/…`. */
function withoutUserinfo(url: string): string {
  if (!url.includes('@')) return url
  return url.replace(USERINFO, (_, before: string) => `${before}${MASK}@`)
}

/** The same spellings at the start of a URL only: where a URL names an authority, not where data mentions one. */
const LEADING_USERINFO = new RegExp(`^(?:${USERINFO.source})`, 'iu')

/** Whether the URL starts with an authority that carries userinfo, in any of the spellings masked above. */
export function startsWithUserinfo(url: string): boolean {
  return url.includes('@') && LEADING_USERINFO.test(url)
}

/**
 * A text made from a URL (an error's message) with that URL's userinfo masked: every userinfo the log would
 * mask in the URL, as written and percent-decoded, wherever the text repeats it before its `@`, and any
 * userinfo the text spells itself.
 */
export function withoutUserinfoOf(text: string, url: string): string {
  if (!url.includes('@')) return text
  let masked = text
  for (const match of url.matchAll(USERINFO)) {
    const userinfo = match[0].slice(match[1]!.length, -1)
    for (const spelling of new Set([userinfo, decoded(userinfo)])) {
      if (spelling.length > 0) masked = masked.replaceAll(`${spelling}@`, `${MASK}@`)
    }
  }
  return withoutUserinfo(masked)
}

// A `t` segment: `t` or `%74`/`%54`, between separators written as `/`, `\` or percent-encoded.
const SEPARATOR = String.raw`(?:/|\\|%2f|%5c)`
const TOKEN_SEGMENT = new RegExp(`(${SEPARATOR}(?:t|%74|%54)${SEPARATOR})((?:(?!${SEPARATOR})[^?#])+)`, 'gi')

function withoutPathTokens(path: string): string {
  return path.replace(TOKEN_SEGMENT, (_, before: string) => `${before}${MASK}`)
}

function withoutTokenParameters(query: string): string {
  return query
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=')
      const name = equals < 0 ? parameter : parameter.slice(0, equals)
      return decoded(name).trim().toLowerCase() === 'token' ? `${name}=${MASK}` : parameter
    })
    .join('&')
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Matches `secret` with any of its characters written literally or percent-encoded. */
function anySpelling(secret: string): string {
  let pattern = ''
  for (const character of secret) {
    const encoded = [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')
    pattern += `(?:${escapeRegExp(character)}|${encoded})`
  }
  return pattern
}

/**
 * One pattern for all the secrets of a list, so a URL is searched once however many tokens are configured
 * (every logged request is). Longer secrets come first: one that contains another is masked whole.
 */
const secretPatterns = new WeakMap<readonly string[], RegExp | null>()

function secretsPattern(secrets: readonly string[]): RegExp | null {
  let pattern = secretPatterns.get(secrets)
  if (pattern === undefined) {
    const alternatives = [...new Set(secrets)]
      .filter((secret) => secret.length > 0)
      .sort((a, b) => b.length - a.length)
      .map(anySpelling)
    pattern = alternatives.length === 0 ? null : new RegExp(alternatives.join('|'), 'gi')
    secretPatterns.set(secrets, pattern)
  }
  return pattern
}

const NO_SECRETS: readonly string[] = []

export function redactUrl(url: string, secrets: readonly string[] = NO_SECRETS): string {
  let text = withoutUserinfo(url)
  const queryAt = text.indexOf('?')
  const path = queryAt < 0 ? text : text.slice(0, queryAt)
  text = withoutPathTokens(path) + (queryAt < 0 ? '' : `?${withoutTokenParameters(text.slice(queryAt + 1))}`)
  const pattern = secretsPattern(secrets)
  return pattern === null ? text : text.replace(pattern, MASK)
}
