// When a list is over its limit, the error states the list's actual size (decisions.md §8: "the actual
// figure"). This finishes counting the items without building them: it scans tokens, counting commas
// outside nested parentheses and brackets, up to the list's end. Used only on the way to an error.
import { isODataError } from '../../../errors.js'
import { TokenKind } from '../lexer/token-kind.js'
import type { ParseState } from './parse-state.js'

/**
 * Items from the current token to the end of the list (the current token starts an item after a comma
 * already counted, or is the comma before the next one). Returns undefined when the text ends badly
 * before the list does, so that the caller says "more than" instead of a wrong figure.
 */
export function countRemainingItems(state: ParseState, counted: number): number | undefined {
  const lexer = state.lexer
  let depth = 0
  let items = counted
  try {
    for (;;) {
      switch (lexer.kind) {
        case TokenKind.End:
          return depth === 0 ? items : undefined
        case TokenKind.OpenParen:
        case TokenKind.OpenBracket:
        case TokenKind.OpenBrace:
          depth++
          break
        case TokenKind.CloseParen:
        case TokenKind.CloseBracket:
        case TokenKind.CloseBrace:
          if (depth === 0) return items
          depth--
          break
        case TokenKind.Semicolon:
          if (depth === 0) return items
          break
        case TokenKind.Comma:
          if (depth === 0) items++
          break
      }
      lexer.next()
    }
  } catch (error) {
    if (isODataError(error)) return undefined
    throw error
  }
}

/** "has 600 items" or "has more than 500 items". */
export function describeCount(actual: number | undefined, limit: number, noun: string): string {
  return actual === undefined ? `has more than ${limit} ${noun}` : `has ${actual} ${noun}`
}
