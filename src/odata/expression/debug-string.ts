// A compact S-expression for any node, for tests and debugging:
//   parseFilter("Goods/any(g: g/Quantity gt 5)") → (path Goods (any g (gt (path var:g Quantity) 5)))
// Literals print as their value, with the type where it is not obvious: 5, 5.0m, 1.5e3d, 'text',
// (guid …), (date …), (datetime …), (time …), (duration …), (enum Type 'Members'), null, true.
import type { ExpressionNode } from './ast/expression-node.js'
import { visitExpression, type ExpressionVisitor } from './ast/expression-visitor.js'
import type { LiteralNode } from './ast/literal-node.js'
import type { DateTimeOffsetValue, DurationValue, TimeOfDayValue } from './ast/literal-value.js'
import type { ExpandOptions } from './ast/expand-node.js'

export function toDebugString(node: ExpressionNode): string {
  return visitExpression(node, printer, undefined)
}

const print = (node: ExpressionNode): string => visitExpression(node, printer, undefined)
const list = (nodes: readonly ExpressionNode[]): string => nodes.map(print).join(' ')

const printer: ExpressionVisitor<string> = {
  LiteralNode: (node) => printLiteral(node),
  ParameterAliasNode: (node) => `@${node.name}`,
  MemberPathNode: (node) => {
    const parts = node.segments.map(print)
    if (node.scope !== 'implicit') parts.unshift(node.scope === 'lambda' ? `var:${node.variable}` : node.scope)
    return `(path ${parts.join(' ')})`
  },
  PropertySegmentNode: (node) => node.name,
  TypeCastSegmentNode: (node) => `<${node.typeName}>`,
  CountSegmentNode: (node) => (node.filter === null ? '$count' : `($count ${print(node.filter)})`),
  LambdaNode: (node) =>
    node.variable === null ? `(${node.operator})` : `(${node.operator} ${node.variable} ${print(node.predicate as ExpressionNode)})`,
  MethodCallNode: (node) => `(${node.name}${node.arguments.length === 0 ? '' : ` ${list(node.arguments)}`})`,
  CastNode: (node) => `(cast ${node.operand === null ? '' : `${print(node.operand)} `}${printType(node.type)})`,
  IsOfNode: (node) => `(isof ${node.operand === null ? '' : `${print(node.operand)} `}${printType(node.type)})`,
  BinaryOperationNode: (node) => `(${node.operator} ${print(node.left)} ${print(node.right)})`,
  UnaryOperationNode: (node) => `(${node.operator === 'negate' ? '-' : 'not'} ${print(node.operand)})`,
  InNode: (node) => `(in ${print(node.left)} ${print(node.right)})`,
  ListNode: (node) => `(list${node.items.length === 0 ? '' : ` ${list(node.items)}`})`,
  OrderByNode: (node) => `(orderby ${list(node.items)})`,
  OrderByItemNode: (node) => `(${node.direction} ${print(node.expression)})`,
  SelectNode: (node) => `(select ${list(node.items)})`,
  StarNode: () => '*',
  ExpandNode: (node) => `(expand ${list(node.items)})`,
  ExpandItemNode: (node) => {
    const form = node.form === 'references' ? ' $ref' : node.form === 'count' ? ' $count' : ''
    return `(${print(node.path)}${form}${printExpandOptions(node.options)})`
  },
  ApplyNode: (node) => `(apply ${list(node.transformations)})`,
  AggregateTransformationNode: (node) => `(aggregate ${list(node.items)})`,
  AggregateExpressionNode: (node) => `(${node.method} ${print(node.expression)} as ${node.alias})`,
  AggregateCountNode: (node) => `($count${node.path === null ? '' : ` ${print(node.path)}`} as ${node.alias})`,
  GroupByTransformationNode: (node) => `(groupby (${list(node.properties)})${node.apply === null ? '' : ` ${print(node.apply)}`})`,
  FilterTransformationNode: (node) => `(filter ${print(node.predicate)})`,
  ComputeTransformationNode: (node) => `(compute ${list(node.items)})`,
  ComputeItemNode: (node) => `(${print(node.expression)} as ${node.alias})`,
  OrderByTransformationNode: (node) => `(orderby ${list(node.items)})`,
  TopTransformationNode: (node) => `(top ${node.count})`,
  SkipTransformationNode: (node) => `(skip ${node.count})`,
}

function printExpandOptions(options: ExpandOptions): string {
  const parts: string[] = []
  if (options.filter !== null) parts.push(`($filter ${print(options.filter)})`)
  if (options.orderBy !== null) parts.push(`($orderby ${list(options.orderBy.items)})`)
  if (options.select !== null) parts.push(`($select ${list(options.select.items)})`)
  if (options.expand !== null) parts.push(`($expand ${list(options.expand.items)})`)
  if (options.apply !== null) parts.push(`($apply ${list(options.apply.transformations)})`)
  if (options.top !== null) parts.push(`($top ${options.top})`)
  if (options.skip !== null) parts.push(`($skip ${options.skip})`)
  if (options.count !== null) parts.push(`($count ${options.count})`)
  if (options.levels !== null) parts.push(`($levels ${options.levels})`)
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`
}

function printType(type: { readonly name: string; readonly collection: boolean }): string {
  return type.collection ? `Collection(${type.name})` : type.name
}

function printLiteral(node: LiteralNode): string {
  switch (node.type) {
    case 'Null':
      return 'null'
    case 'Edm.Boolean':
      return String(node.value)
    case 'Edm.Int32':
      return String(node.value)
    case 'Edm.Int64':
      return `${node.value}L`
    case 'Edm.Decimal':
      return `${node.value}m`
    case 'Edm.Double':
      return `${node.value}d`
    case 'Edm.String':
      return `'${node.value.replaceAll("'", "''")}'`
    case 'Edm.Guid':
      return `(guid ${node.value})`
    case 'Edm.Date':
      return `(date ${pad(node.value.year, 4)}-${pad(node.value.month)}-${pad(node.value.day)})`
    case 'Edm.DateTimeOffset':
      return `(datetime ${printDateTime(node.value)})`
    case 'Edm.TimeOfDay':
      return `(time ${printTime(node.value)})`
    case 'Edm.Duration':
      return `(duration ${printDuration(node.value)})`
    case 'Edm.Binary':
      return `(binary ${node.value})`
    case 'Enum':
      return `(enum ${node.value.typeName ?? '?'} '${node.value.members}')`
  }
}

function printDateTime(value: DateTimeOffsetValue): string {
  const date = `${pad(value.year, 4)}-${pad(value.month)}-${pad(value.day)}`
  let offset = ''
  if (value.offsetMinutes === 0) offset = 'Z'
  else if (value.offsetMinutes !== null) {
    const minutes = Math.abs(value.offsetMinutes)
    offset = `${value.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`
  }
  return `${date}T${printTime(value)}${offset}`
}

function printTime(value: TimeOfDayValue): string {
  return `${pad(value.hour)}:${pad(value.minute)}:${pad(value.second)}${value.fraction === '' ? '' : `.${value.fraction}`}`
}

function printDuration(value: DurationValue): string {
  const time = `${value.hours ? `${value.hours}H` : ''}${value.minutes ? `${value.minutes}M` : ''}${value.seconds || value.fraction ? `${value.seconds}${value.fraction ? `.${value.fraction}` : ''}S` : ''}`
  return `${value.negative ? '-' : ''}P${value.days ? `${value.days}D` : ''}${time ? `T${time}` : ''}`
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0')
}
