// The state of one parse of one option text: the lexer, the option's name and error code, the limits and
// the running figures they are checked against, and the lambda variables in scope. Grammar functions
// (named after the ABNF rules) take it as their only argument.
import type { ErrorCode } from '../../../errors.js'
import { literalError, RunningLimitError, syntaxError, tooComplexError, type RunningLimit } from '../expression-error.js'
import type { ExpressionLimits } from '../expression-limits.js'
import { Keyword, classifyKeyword } from '../lexer/keyword.js'
import { Lexer, type LexerErrors } from '../lexer/lexer.js'
import { TokenKind } from '../lexer/token-kind.js'
import { describeCount } from './count-remaining-items.js'

export class ParseState implements LexerErrors {
  readonly lexer: Lexer
  /** Nesting depth (decisions.md §8): open parentheses and brackets, prefix operators. */
  depth = 0
  /** The greatest depth reached. */
  deepest = 0
  /** AST nodes built so far. */
  nodes = 0
  /** Current `$expand` level (1 inside a top-level expand item). */
  expandDepth = 0
  /** Expand items seen so far, nested ones included. */
  expansions = 0
  /** `$apply` transformations seen so far, nested ones included. */
  applySteps = 0
  private readonly lambdaVariables: string[] = []

  constructor(
    readonly text: string,
    /** The query option (or parameter) name: the target of every error. */
    readonly option: string,
    /** The option's own error code for syntax errors. */
    readonly code: ErrorCode,
    readonly limits: ExpressionLimits,
  ) {
    if (text.length > limits.maxLength) {
      // Reported at the first character past the limit, before anything is scanned.
      throw tooComplexError(option, limits.maxLength, `it has ${text.length} characters; at most ${limits.maxLength} are allowed`)
    }
    this.lexer = new Lexer(text, this)
    this.lexer.next()
    // The ABNF has no whitespace between `$filter=` and the expression.
    if (this.lexer.spaceBefore) this.syntaxError(0, 'whitespace is not allowed at the start')
  }

  // --- errors -------------------------------------------------------------------------------------

  syntaxError(position: number, description: string): never {
    throw syntaxError(this.code, this.option, position, description)
  }

  literalError(position: number, description: string): never {
    throw literalError(this.option, position, description)
  }

  tooComplex(position: number | undefined, description: string): never {
    throw tooComplexError(this.option, position, description)
  }

  /** A running figure passed its limit: the parse stops here, and its caller counts the whole text's figure. */
  overLimit(limit: RunningLimit, position: number, describe: (actual: number | undefined) => string): never {
    throw new RunningLimitError(limit, describe, this.option, position)
  }

  /** "expected X but found Y" at the current token. */
  expected(what: string): never {
    return this.syntaxError(this.lexer.start, `expected ${what} but found ${this.describeToken()}`)
  }

  describeToken(): string {
    const lexer = this.lexer
    if (lexer.kind === TokenKind.End) return 'the end of the text'
    const text = lexer.end - lexer.start > 40 ? `${this.text.slice(lexer.start, lexer.start + 40)}…` : lexer.tokenText()
    return `'${text}'`
  }

  // --- limits -------------------------------------------------------------------------------------

  /** One level deeper, at `position`; every enter() is paired with a leave(). */
  enter(position: number): void {
    if (++this.depth > this.deepest) this.deepest = this.depth
    if (this.depth > this.limits.maxDepth) {
      const limit = this.limits.maxDepth
      this.overLimit(
        'maxDepth',
        position,
        (actual) =>
          `it nests ${actual === undefined ? `deeper than ${limit}` : actual} levels${actual === undefined ? '' : ' deep'}; at most ${limit} are allowed`,
      )
    }
  }

  leave(): void {
    this.depth--
  }

  /** Counts one node about to be built at `position`. */
  countNode(position: number): void {
    if (++this.nodes > this.limits.maxNodes) {
      const limit = this.limits.maxNodes
      this.overLimit(
        'maxNodes',
        position,
        (actual) => `it ${describeCount(actual, limit, 'expression nodes')}; at most ${limit} are allowed`,
      )
    }
  }

  // --- tokens -------------------------------------------------------------------------------------

  /** Whether the current token is the keyword (an unqualified Name). */
  at(keyword: Keyword): boolean {
    return this.lexer.kind === TokenKind.Name && this.lexer.keyword === keyword
  }

  /** Consumes a token of the kind, or fails with "expected <what>". Returns its start. */
  expect(kind: TokenKind, what: string): number {
    const lexer = this.lexer
    if (lexer.kind !== kind) this.expected(what)
    const start = lexer.start
    lexer.next()
    return start
  }

  /**
   * An opening parenthesis directly after a name (ABNF `"contains" OPEN`, `"groupby" OPEN`: no whitespace
   * between): one nesting level deeper until the matching closeParenthesis().
   */
  openParenthesisAfterName(what: string): void {
    const lexer = this.lexer
    if (lexer.kind === TokenKind.OpenParen && lexer.spaceBefore) {
      this.syntaxError(lexer.whitespaceStart, `no whitespace is allowed between ${what} and '('`)
    }
    this.openParenthesis(`'(' after ${what}`)
  }

  /** An opening parenthesis (whitespace before it allowed): one nesting level deeper. */
  openParenthesis(what: string): void {
    const lexer = this.lexer
    if (lexer.kind !== TokenKind.OpenParen) this.expected(what)
    this.enter(lexer.start)
    lexer.next()
  }

  closeParenthesis(what = "')'"): void {
    this.expect(TokenKind.CloseParen, what)
    this.leave()
  }

  /** Whether the current token is directly followed by '(' (a call, not a property). */
  followedByParenthesis(): boolean {
    return this.text.charCodeAt(this.lexer.end) === 0x28
  }

  /** ABNF RWS before the current token (after `eq`, `not`, `with`, `as`, …). */
  requireSpaceBefore(after: string): void {
    if (this.lexer.kind === TokenKind.End) this.expected(`an operand after '${after}'`)
    if (!this.lexer.spaceBefore) this.syntaxError(this.lexer.start, `expected whitespace after '${after}'`)
  }

  /** A slash that continues a path: no whitespace before it (ABNF "/" is not surrounded by BWS). */
  atPathSlash(): boolean {
    return this.lexer.kind === TokenKind.Slash && !this.lexer.spaceBefore
  }

  /** Consumes the slash of a path and checks that the next segment follows it directly. */
  passPathSlash(): void {
    this.lexer.next()
    if (this.lexer.spaceBefore) this.syntaxError(this.lexer.whitespaceStart, "no whitespace is allowed after '/' in a path")
  }

  /** Whether the current token is the `$`-name given (`$count`, `$ref`), compared in place. */
  atDollarName(name: string): boolean {
    const lexer = this.lexer
    return lexer.kind === TokenKind.DollarName && lexer.end - lexer.start === name.length && this.text.startsWith(name, lexer.start)
  }

  /** ABNF odataIdentifier: an unqualified Name, returned as a string. */
  identifier(what: string): string {
    const lexer = this.lexer
    if (lexer.kind !== TokenKind.Name || lexer.qualified) this.expected(what)
    const name = lexer.tokenText()
    lexer.next()
    return name
  }

  /** The end of the option text: no token and no trailing whitespace left. */
  expectEnd(what: string): void {
    const lexer = this.lexer
    if (lexer.kind !== TokenKind.End) {
      // A slash after whitespace is a path or transformation chain broken by a space (ABNF "/" has no BWS).
      if (lexer.kind === TokenKind.Slash && lexer.spaceBefore)
        this.syntaxError(lexer.whitespaceStart, "no whitespace is allowed before '/'")
      // A common mistake gets a direct answer: `EQ` for `eq`. (The ABNF's quoted strings are
      // case-insensitive; this service's keywords are not.)
      if (lexer.kind === TokenKind.Name && !lexer.qualified) {
        const lower = lexer.tokenText().toLowerCase()
        if (classifyKeyword(lower, 0, lower.length) !== Keyword.None && lower !== lexer.tokenText()) {
          this.syntaxError(
            lexer.start,
            `expected ${what} but found '${lexer.tokenText()}' (operators and keywords are lowercase: '${lower}')`,
          )
        }
      }
      this.expected(what)
    }
    if (lexer.spaceBefore) this.syntaxError(lexer.whitespaceStart, 'whitespace is not allowed at the end')
  }

  // --- lambda variables ---------------------------------------------------------------------------

  /** Whether text[start, end) names a lambda variable in scope; compares in place, without a substring. */
  isLambdaVariableAt(start: number, end: number): boolean {
    for (const variable of this.lambdaVariables) {
      if (variable.length === end - start && this.text.startsWith(variable, start)) return true
    }
    return false
  }

  pushLambdaVariable(name: string): void {
    this.lambdaVariables.push(name)
  }

  popLambdaVariable(): void {
    this.lambdaVariables.pop()
  }
}
