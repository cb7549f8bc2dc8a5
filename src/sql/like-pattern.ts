// LIKE patterns built from a value: the value's own `%` and `_` must match themselves, so they are escaped,
// and so is the escape character. `!` is the escape character (named in every LIKE as ESCAPE '!'):
// unlike `\`, its meaning does not change with the NO_BACKSLASH_ESCAPES SQL mode.
export const LIKE_ESCAPE_CHARACTER = '!'

export function escapeLikeValue(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`)
}

export const containsPattern = (value: string): string => `%${escapeLikeValue(value)}%`
export const startsWithPattern = (value: string): string => `${escapeLikeValue(value)}%`
export const endsWithPattern = (value: string): string => `%${escapeLikeValue(value)}`
