// ABNF commonExpr and boolCommonExpr, with the operator precedence of OData 4.01 URL Conventions
// 5.1.1.15 (the ABNF itself lists the operators but leaves precedence to that table):
//
//   primary         /  has  in  calls            (primary-expr.ts)
//   unary           -  not                       (here, unaryExpr)
//   multiplicative  mul div divby mod
//   additive        add sub
//   relational      gt ge lt le
//   equality        eq ne
//   conditional AND and
//   conditional OR  or
//
// Binary operators associate to the left (`a sub b sub c` is `(a sub b) sub c`) and need whitespace
// on both sides (ABNF `RWS "eq" RWS`).
import { BinaryOperationNode, type BinaryOperator } from '../ast/binary-operation-node.js'
import type { CommonExpressionNode } from '../ast/expression-node.js'
import { UnaryOperationNode } from '../ast/unary-operation-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import type { ParseState } from './parse-state.js'
import { primaryExpr } from './primary-expr.js'

interface BinaryOperatorInfo {
  readonly operator: BinaryOperator
  /** Higher binds tighter. */
  readonly precedence: number
}

const OR = 1
const AND = 2
const EQUALITY = 3
const RELATIONAL = 4
const ADDITIVE = 5
const MULTIPLICATIVE = 6

/** Indexed by Keyword: the binary operator a keyword spells, if any. */
const BINARY_OPERATOR_BY_KEYWORD: readonly (BinaryOperatorInfo | undefined)[] = (() => {
  const size = Math.max(...Object.values(Keyword)) + 1
  const table = new Array<BinaryOperatorInfo | undefined>(size).fill(undefined)
  const add = (keyword: Keyword, operator: BinaryOperator, precedence: number) => {
    table[keyword] = { operator, precedence }
  }
  add(Keyword.Or, 'or', OR)
  add(Keyword.And, 'and', AND)
  add(Keyword.Eq, 'eq', EQUALITY)
  add(Keyword.Ne, 'ne', EQUALITY)
  add(Keyword.Gt, 'gt', RELATIONAL)
  add(Keyword.Ge, 'ge', RELATIONAL)
  add(Keyword.Lt, 'lt', RELATIONAL)
  add(Keyword.Le, 'le', RELATIONAL)
  add(Keyword.Add, 'add', ADDITIVE)
  add(Keyword.Sub, 'sub', ADDITIVE)
  add(Keyword.Mul, 'mul', MULTIPLICATIVE)
  add(Keyword.Div, 'div', MULTIPLICATIVE)
  add(Keyword.Divby, 'divby', MULTIPLICATIVE)
  add(Keyword.Mod, 'mod', MULTIPLICATIVE)
  return table
})()

export function commonExpr(state: ParseState): CommonExpressionNode {
  return binaryExpr(state, OR)
}

/**
 * ABNF boolCommonExpr = commonExpr ; resulting in a Boolean. Whether it is Boolean needs the model's
 * types: the binder checks it.
 */
export function boolCommonExpr(state: ParseState): CommonExpressionNode {
  return binaryExpr(state, OR)
}

/**
 * Precedence climbing: an operand, then operators binding at least as tightly as `minPrecedence`. The
 * recursion is bounded by the number of precedence levels, not by the length of the input.
 */
function binaryExpr(state: ParseState, minPrecedence: number): CommonExpressionNode {
  const lexer = state.lexer
  let left = unaryExpr(state)
  for (;;) {
    if (lexer.kind !== TokenKind.Name || !lexer.spaceBefore) return left
    const info = BINARY_OPERATOR_BY_KEYWORD[lexer.keyword]
    if (info === undefined || info.precedence < minPrecedence) return left
    const position = lexer.start
    lexer.next()
    state.requireSpaceBefore(info.operator)
    const right = binaryExpr(state, info.precedence + 1)
    state.countNode(position)
    left = BinaryOperationNode.create(info.operator, left, right, position)
  }
}

/**
 * ABNF negateExpr = "-" BWS commonExpr and notExpr = "not" RWS boolCommonExpr, as prefix operators.
 * A chain of them is collected in a loop, not by recursion, so that `not not … x` cannot deepen the
 * JavaScript stack; each still counts one nesting level, so a long chain is refused early.
 */
function unaryExpr(state: ParseState): CommonExpressionNode {
  const lexer = state.lexer
  // Each entry: position * 2 + 1 for `not`, position * 2 for a minus. Allocated only when needed.
  let operators: number[] | undefined
  for (;;) {
    if (lexer.kind === TokenKind.Minus) {
      state.enter(lexer.start)
      ;(operators ??= []).push(lexer.start * 2)
      lexer.next()
      continue
    }
    if (state.at(Keyword.Not) && !state.followedByParenthesis()) {
      const mark = lexer.mark()
      const position = lexer.start
      lexer.next()
      // `not` followed by whitespace is the operator; otherwise it is a name (a property called `not`).
      if (!lexer.spaceBefore || lexer.kind === TokenKind.End) {
        lexer.reset(mark)
        break
      }
      state.enter(position)
      ;(operators ??= []).push(position * 2 + 1)
      continue
    }
    if (state.at(Keyword.Not)) state.syntaxError(lexer.end, "expected whitespace after 'not'")
    break
  }
  let operand = primaryExpr(state)
  if (operators === undefined) return operand
  for (let i = operators.length - 1; i >= 0; i--) {
    const entry = operators[i]
    const position = Math.floor(entry / 2)
    state.countNode(position)
    operand = UnaryOperationNode.create(entry % 2 === 1 ? 'not' : 'negate', operand, position)
    state.leave()
  }
  return operand
}
