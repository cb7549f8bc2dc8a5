// ABNF primitiveLiteral. `type` is the Edm type the literal is written in ('Null' for null, 'Enum' for
// an enumeration literal); `value` is already converted and range-checked.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'
import type { DateTimeOffsetValue, DateValue, DurationValue, EnumValue, TimeOfDayValue } from './literal-value.js'

interface TypedLiteral<Type extends string, Value> {
  readonly kind: 'LiteralNode'
  readonly position: number
  readonly type: Type
  readonly value: Value
}

export type LiteralNode =
  | TypedLiteral<'Null', null>
  | TypedLiteral<'Edm.Boolean', boolean>
  | TypedLiteral<'Edm.Int32', number>
  | TypedLiteral<'Edm.Int64', bigint>
  /** Exact decimal text without a leading '+', e.g. '-3.14'. */
  | TypedLiteral<'Edm.Decimal', string>
  | TypedLiteral<'Edm.Double', number>
  | TypedLiteral<'Edm.String', string>
  /** Lowercase canonical form. */
  | TypedLiteral<'Edm.Guid', string>
  | TypedLiteral<'Edm.Date', DateValue>
  | TypedLiteral<'Edm.DateTimeOffset', DateTimeOffsetValue>
  | TypedLiteral<'Edm.TimeOfDay', TimeOfDayValue>
  | TypedLiteral<'Edm.Duration', DurationValue>
  /** base64url text as written (ABNF binaryValue). */
  | TypedLiteral<'Edm.Binary', string>
  | TypedLiteral<'Enum', EnumValue>

export type LiteralType = LiteralNode['type']
export type LiteralOf<Type extends LiteralType> = Extract<LiteralNode, { type: Type }>

export const LiteralNode = freeze({
  is(node: ExpressionNode): node is LiteralNode {
    return node.kind === 'LiteralNode'
  },

  create<Type extends LiteralType>(type: Type, value: LiteralOf<Type>['value'], position: number): LiteralOf<Type> {
    return freeze({ kind: 'LiteralNode', position, type, value }) as unknown as LiteralOf<Type>
  },
})
