// Binds a parsed expression (commonExpr) to the model: every name is looked up in the source it is
// relative to, every operator and function gets operands of types it accepts, literals take the form the
// store compares with. The result is a bound expression the SQL compiler turns into text with
// placeholders. Errors are 400 with the option as target and the position of the offending node.
//
// The visitor is typed over every parser node kind (a new kind does not compile until it is handled
// here); the kinds that are parts of query options rather than expressions are refused as internal.
import {
  parseCommonExpression,
  visitExpression,
  type BinaryOperationNode,
  type CommonExpressionNode,
  type ExpressionNode,
  type ExpressionVisitor,
  type InNode,
  type MemberPathNode,
  type MethodCallNode,
  type PathSegmentNode,
} from '../expression/index.js'
import type { BindEnvironment } from './bind-environment.js'
import { bindError, surrogateKeyError } from './bind-error.js'
import { bindLiteral } from './bind-literal.js'
import { comparable, isNumeric, promoteNumeric, type BoundType } from './bound-type.js'
import { BoundArithmetic } from './bound/bound-arithmetic.js'
import { BoundCast } from './bound/bound-cast.js'
import { BoundCollectionCount } from './bound/bound-collection-count.js'
import { BoundComparison } from './bound/bound-comparison.js'
import type { BoundExpression } from './bound/bound-expression.js'
import { BoundFunctionCall } from './bound/bound-function-call.js'
import { BoundIn } from './bound/bound-in.js'
import { BoundLambda } from './bound/bound-lambda.js'
import { BoundLiteral } from './bound/bound-literal.js'
import { BoundLogical } from './bound/bound-logical.js'
import { BoundNegate } from './bound/bound-negate.js'
import { BoundNot } from './bound/bound-not.js'
import { BoundProperty } from './bound/bound-property.js'
import { checkFunctionCall } from './function-signatures.js'
import { QueryScope } from './query-scope.js'
import type { Range } from './range.js'

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** Parameter aliases may refer to other aliases, but not endlessly. */
const MAX_ALIAS_DEPTH = 8

/** Binds any value expression. */
export function bindExpression(node: CommonExpressionNode, environment: BindEnvironment): BoundExpression {
  return visitExpression<BoundExpression, BindEnvironment>(node, EXPRESSION_BINDER, environment)
}

/** Binds an expression that must be true or false (`$filter`, lambda predicates, `filter()`). */
export function bindPredicate(node: CommonExpressionNode, environment: BindEnvironment): BoundExpression {
  const bound = bindExpression(node, environment)
  if (bound.type !== 'Edm.Boolean' && bound.type !== 'Null') {
    throw bindError(environment.context, node.position, `a condition must be true or false, but this expression is ${bound.type}`)
  }
  return bound
}

const notAnExpression = (node: ExpressionNode, environment: BindEnvironment): never => {
  throw bindError(environment.context, node.position, `${node.kind} is not an expression`)
}

const EXPRESSION_BINDER: ExpressionVisitor<BoundExpression, BindEnvironment> = {
  LiteralNode: (node, environment) => bindLiteral(node, environment.context),
  ParameterAliasNode: (node, environment) => {
    const context = environment.context
    const text = context.parameterAlias?.(node.name)
    if (text === undefined) throw bindError(context, node.position, `the parameter alias @${node.name} has no value in the request`)
    if (environment.aliases.includes(node.name) || environment.aliases.length >= MAX_ALIAS_DEPTH) {
      throw bindError(context, node.position, `the parameter alias @${node.name} refers to itself`)
    }
    const aliasContext = { ...context, option: `@${node.name}` }
    const parsed = parseCommonExpression(text, {
      option: aliasContext.option,
      errorCode: context.errorCode,
      ...(context.limits ? { limits: context.limits } : {}),
    })
    return bindExpression(parsed, { ...environment, context: aliasContext, aliases: [...environment.aliases, node.name] })
  },
  MemberPathNode: (node, environment) => bindMemberPath(node, environment),
  MethodCallNode: (node, environment) => bindMethodCall(node, environment),
  CastNode: (node, environment) => {
    if (node.operand === null)
      throw bindError(environment.context, node.position, 'cast() of the whole instance is not supported; cast a property')
    const operand = bindExpression(node.operand, environment)
    const target = primitiveTypeName(node.type.name, node.type.collection)
    if (target === undefined)
      throw bindError(environment.context, node.type.position, `cannot cast to ${node.type.name}; only to primitive types`)
    if (!castable(operand.type, target))
      throw bindError(environment.context, node.type.position, `cannot cast ${operand.type} to ${target}`)
    return operand.type === target ? operand : BoundCast.create(operand, target)
  },
  IsOfNode: (node, environment) => {
    // Types are static here: no property has derived types, so isof is decided while binding. A type the
    // service does not know is an error (decisions.md §2: unknown names in a query option are 400), not false.
    const context = environment.context
    const known =
      EDM_TYPES.has(node.type.name) ||
      (context.knownTypes ? context.knownTypes.has(node.type.name) : node.type.name.startsWith(`${context.namespace}.`))
    if (!known) throw bindError(context, node.type.position, `isof names the unknown type ${node.type.name}`)
    if (node.operand === null) {
      const own = `${environment.context.namespace}.${environment.implicit.source.name}`
      return node.type.name === own ? BoundLiteral.TRUE : BoundLiteral.FALSE
    }
    const operand = bindExpression(node.operand, environment)
    const target = primitiveTypeName(node.type.name, node.type.collection)
    return target !== undefined && operand.type === target ? BoundLiteral.TRUE : BoundLiteral.FALSE
  },
  BinaryOperationNode: (node, environment) => bindBinary(node, environment),
  UnaryOperationNode: (node, environment) => {
    const operand = bindExpression(node.operand, environment)
    if (node.operator === 'not') {
      if (operand.type !== 'Edm.Boolean' && operand.type !== 'Null')
        throw bindError(environment.context, node.position, `not needs a true/false operand, not ${operand.type}`)
      return BoundNot.create(operand)
    }
    if (!isNumeric(operand.type) && operand.type !== 'Null')
      throw bindError(environment.context, node.position, `'-' needs a number, not ${operand.type}`)
    return BoundNegate.create(operand)
  },
  InNode: (node, environment) => bindIn(node, environment),
  PropertySegmentNode: notAnExpression,
  TypeCastSegmentNode: notAnExpression,
  CountSegmentNode: notAnExpression,
  LambdaNode: notAnExpression,
  ListNode: notAnExpression,
  OrderByNode: notAnExpression,
  OrderByItemNode: notAnExpression,
  SelectNode: notAnExpression,
  StarNode: notAnExpression,
  ExpandNode: notAnExpression,
  ExpandItemNode: notAnExpression,
  ApplyNode: notAnExpression,
  AggregateExpressionNode: notAnExpression,
  AggregateCountNode: notAnExpression,
  ComputeItemNode: notAnExpression,
  AggregateTransformationNode: notAnExpression,
  GroupByTransformationNode: notAnExpression,
  FilterTransformationNode: notAnExpression,
  ComputeTransformationNode: notAnExpression,
  OrderByTransformationNode: notAnExpression,
  TopTransformationNode: notAnExpression,
  SkipTransformationNode: notAnExpression,
}

/** The range a path starts from. */
function startRange(node: MemberPathNode, environment: BindEnvironment): Range {
  switch (node.scope) {
    case 'implicit':
      return environment.implicit
    case '$it':
    case '$this':
      return environment.it
    case 'lambda': {
      const range = environment.variables.get(node.variable!)
      if (!range) throw bindError(environment.context, node.position, `the lambda variable ${node.variable} is not in scope`)
      return range
    }
  }
}

/**
 * A path: columns end it; references join and go on (`Product/Description`); collections must be
 * followed by any/all or $count. Names are case-sensitive (decisions.md §2).
 */
export function bindMemberPath(node: MemberPathNode, environment: BindEnvironment): BoundExpression {
  const context = environment.context
  let range = startRange(node, environment)
  const segments = node.segments
  if (segments.length === 0)
    throw bindError(context, node.position, `${node.variable ?? node.scope} is an entity, not a value; name one of its properties`)
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segment.kind === 'TypeCastSegmentNode') {
      if (segment.typeName !== `${context.namespace}.${range.source.name}`) {
        throw bindError(context, segment.position, `${range.source.name} has no derived type ${segment.typeName}`)
      }
      continue
    }
    if (segment.kind !== 'PropertySegmentNode') {
      throw bindError(
        context,
        segment.position,
        segment.kind === 'CountSegmentNode'
          ? '$count must follow a collection navigation property'
          : `${segment.operator}() must follow a collection navigation property`,
      )
    }
    const source = range.source
    const column = source.columnByName.get(segment.name) ?? columnNamedByPath(segments, i, range)
    if (column) {
      const consumed = column.name === segment.name ? 1 : column.name.split('/').length
      if (column.surrogate) throw surrogateKeyError(context, segment.position)
      if (i + consumed < segments.length)
        throw bindError(context, segments[i + consumed]!.position, `${column.name} is a value; nothing may follow it in a path`)
      return BoundProperty.create(range, column)
    }
    const navigation = source.navigationByName.get(segment.name)
    if (!navigation) throw bindError(context, segment.position, `${source.name} has no property ${JSON.stringify(segment.name)}`)
    if (navigation.kind === 'reference') {
      if (i === segments.length - 1) {
        throw bindError(
          context,
          segment.position,
          `${navigation.name} is a navigation property; use one of its properties (${navigation.name}/Description) or its key ${navigation.foreignKey.name}`,
        )
      }
      range = range.scope.join(range, navigation, context.resolve)
      continue
    }
    const next: PathSegmentNode | undefined = segments[i + 1]
    const members = QueryScope.members(range, navigation, context.resolve)
    if (next?.kind === 'LambdaNode') {
      if (next.predicate === null) return BoundLambda.create('any', members, null)
      const variables = new Map(environment.variables)
      variables.set(next.variable!, members.root)
      const predicate = bindPredicate(next.predicate, { ...environment, variables })
      return BoundLambda.create(next.operator, members, predicate)
    }
    if (next?.kind === 'CountSegmentNode') {
      // Inside $count($filter=…) plain names are the members' properties, as in a $filter on the collection.
      const filter = next.filter === null ? null : bindPredicate(next.filter, { ...environment, implicit: members.root })
      return BoundCollectionCount.create(members, filter)
    }
    throw bindError(
      context,
      (next ?? segment).position,
      `${navigation.name} is a collection; use ${navigation.name}/any(…), ${navigation.name}/all(…) or ${navigation.name}/$count`,
    )
  }
  throw bindError(context, node.position, 'a type cast alone is not a value')
}

/** After a groupby, `Product/Description` is one column of the result: find it by the joined names. */
function columnNamedByPath(segments: readonly PathSegmentNode[], from: number, range: Range) {
  let name = ''
  for (let j = from; j < segments.length; j++) {
    const segment = segments[j]!
    if (segment.kind !== 'PropertySegmentNode') return undefined
    name = j === from ? segment.name : `${name}/${segment.name}`
    const column = j > from ? range.source.columnByName.get(name) : undefined
    if (column) return column
  }
  return undefined
}

function bindMethodCall(node: MethodCallNode, environment: BindEnvironment): BoundExpression {
  const args = node.arguments.map((argument) => bindExpression(argument, environment))
  const check = checkFunctionCall(
    node.name,
    args.map((a) => a.type),
  )
  if (!check.ok) {
    const position = check.argument === undefined ? node.position : node.arguments[check.argument]!.position
    throw bindError(environment.context, position, check.message)
  }
  return BoundFunctionCall.create(node.name, args, check.type)
}

function bindBinary(node: BinaryOperationNode, environment: BindEnvironment): BoundExpression {
  const context = environment.context
  const operator = node.operator
  if (operator === 'has') {
    throw bindError(
      context,
      node.position,
      'has needs an enumeration-typed property, and the model has none (RecordType and similar properties are strings: use eq)',
    )
  }
  let left = bindExpression(node.left, environment)
  let right = bindExpression(node.right, environment)
  switch (operator) {
    case 'and':
    case 'or':
      for (const [operand, source] of [
        [left, node.left],
        [right, node.right],
      ] as const) {
        if (operand.type !== 'Edm.Boolean' && operand.type !== 'Null')
          throw bindError(context, source.position, `${operator} needs true/false operands, not ${operand.type}`)
      }
      return BoundLogical.create(operator, left, right)
    case 'eq':
    case 'ne':
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      right = coerceLiteral(right, left, node.right.position, environment)
      left = coerceLiteral(left, right, node.left.position, environment)
      if (!comparable(left.type, right.type)) throw bindError(context, node.position, `cannot compare ${left.type} with ${right.type}`)
      return BoundComparison.create(operator, left, right)
    default:
      return bindArithmetic(node, left, right, environment)
  }
}

function bindArithmetic(
  node: BinaryOperationNode,
  left: BoundExpression,
  right: BoundExpression,
  environment: BindEnvironment,
): BoundExpression {
  const operator = node.operator as 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod'
  // URL Conventions 5.1.1.2.1: a date-time plus or minus a duration is a date-time.
  if ((operator === 'add' || operator === 'sub') && left.type === 'Edm.DateTimeOffset' && right.type === 'Edm.Duration') {
    return BoundArithmetic.create(operator, left, right, 'Edm.DateTimeOffset')
  }
  for (const [operand, source] of [
    [left, node.left],
    [right, node.right],
  ] as const) {
    if (!isNumeric(operand.type) && operand.type !== 'Null')
      throw bindError(environment.context, source.position, `${operator} needs numbers, not ${operand.type}`)
  }
  const type =
    operator === 'divby' ? promoteNumeric(promoteNumeric(left.type, right.type), 'Edm.Decimal') : promoteNumeric(left.type, right.type)
  return BoundArithmetic.create(operator, left, right, type === 'Null' ? 'Edm.Decimal' : type)
}

function bindIn(node: InNode, environment: BindEnvironment): BoundExpression {
  const left = bindExpression(node.left, environment)
  if (node.right.kind !== 'ListNode') {
    throw bindError(
      environment.context,
      node.right.position,
      "in needs a list of values, as in Code in ('1','2'); no property of this service is a collection of values",
    )
  }
  const items = node.right.items.map((item) => {
    const bound = coerceLiteral(bindLiteral(item, environment.context), left, item.position, environment)
    if (!comparable(left.type, bound.type))
      throw bindError(environment.context, item.position, `cannot compare ${left.type} with ${bound.type}`)
    return bound
  })
  return BoundIn.create(left, items)
}

/**
 * A literal compared with a value of another type, where the intent is plain: a string holding a GUID
 * against a GUID (`Product_Key eq '…'`), a date against a date-time (its midnight, UTC).
 */
function coerceLiteral(
  expression: BoundExpression,
  other: BoundExpression,
  position: number,
  environment: BindEnvironment,
): BoundExpression {
  if (expression.kind !== 'BoundLiteral' || expression.type === other.type) return expression
  if (other.type === 'Edm.Guid' && expression.type === 'Edm.String') {
    const text = String(expression.value)
    if (!GUID.test(text))
      throw bindError(environment.context, position, `${JSON.stringify(text.slice(0, 40))} is not a GUID`, 'InvalidLiteral')
    return BoundLiteral.create('Edm.Guid', text.toLowerCase())
  }
  if (other.type === 'Edm.DateTimeOffset' && expression.type === 'Edm.Date') {
    return BoundLiteral.create('Edm.DateTimeOffset', `${String(expression.value)} 00:00:00`)
  }
  return expression
}

const PRIMITIVE_TYPES: ReadonlySet<string> = new Set<BoundType>([
  'Edm.String',
  'Edm.Guid',
  'Edm.Boolean',
  'Edm.Int32',
  'Edm.Int64',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.DateTimeOffset',
  'Edm.Date',
  'Edm.TimeOfDay',
])

/** The primitive types of OData 4.01 (CSDL §4.4): known to isof even where no property has them. */
const EDM_TYPES: ReadonlySet<string> = new Set(
  [
    'Binary',
    'Boolean',
    'Byte',
    'Date',
    'DateTimeOffset',
    'Decimal',
    'Double',
    'Duration',
    'Guid',
    'Int16',
    'Int32',
    'Int64',
    'SByte',
    'Single',
    'Stream',
    'String',
    'TimeOfDay',
    'Geography',
    'GeographyPoint',
    'GeographyLineString',
    'GeographyPolygon',
    'GeographyMultiPoint',
    'GeographyMultiLineString',
    'GeographyMultiPolygon',
    'GeographyCollection',
    'Geometry',
    'GeometryPoint',
    'GeometryLineString',
    'GeometryPolygon',
    'GeometryMultiPoint',
    'GeometryMultiLineString',
    'GeometryMultiPolygon',
    'GeometryCollection',
    'Untyped',
  ].map((name) => `Edm.${name}`),
)

function primitiveTypeName(name: string, collection: boolean): BoundType | undefined {
  return !collection && PRIMITIVE_TYPES.has(name) ? (name as BoundType) : undefined
}

/** The conversions cast() offers: to a string from anything, between numbers, and between dates and date-times. */
function castable(from: BoundType, to: BoundType): boolean {
  if (from === to || from === 'Null' || to === 'Edm.String') return true
  if (isNumeric(to)) return isNumeric(from) || from === 'Edm.String'
  if (to === 'Edm.Date') return from === 'Edm.DateTimeOffset' || from === 'Edm.String'
  if (to === 'Edm.DateTimeOffset') return from === 'Edm.Date' || from === 'Edm.String'
  if (to === 'Edm.Guid') return from === 'Edm.String'
  return false
}
