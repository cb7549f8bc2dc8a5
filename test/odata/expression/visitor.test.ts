// The visitor's table is typed over every node kind, nodes are frozen values with `is` guards.
import t from 'tap'
import {
  BinaryOperationNode,
  LiteralNode,
  MemberPathNode,
  parseApply,
  parseExpand,
  parseFilter,
  visitExpression,
  type ExpressionNode,
  type ExpressionVisitor,
} from '../../../src/odata/expression/index.js'

/** Counts the nodes of a tree: a full visitor, one entry per kind. */
const count = (node: ExpressionNode | null): number => (node === null ? 0 : visitExpression(node, counter, undefined))
const sum = (nodes: readonly ExpressionNode[]): number => nodes.reduce((total, node) => total + count(node), 0)

const counter: ExpressionVisitor<number> = {
  LiteralNode: () => 1,
  ParameterAliasNode: () => 1,
  MemberPathNode: (node) => 1 + sum(node.segments),
  PropertySegmentNode: () => 1,
  TypeCastSegmentNode: () => 1,
  CountSegmentNode: (node) => 1 + count(node.filter),
  LambdaNode: (node) => 1 + count(node.predicate),
  MethodCallNode: (node) => 1 + sum(node.arguments),
  CastNode: (node) => 1 + count(node.operand),
  IsOfNode: (node) => 1 + count(node.operand),
  BinaryOperationNode: (node) => 1 + count(node.left) + count(node.right),
  UnaryOperationNode: (node) => 1 + count(node.operand),
  InNode: (node) => 1 + count(node.left) + count(node.right),
  ListNode: (node) => 1 + sum(node.items),
  OrderByNode: (node) => 1 + sum(node.items),
  OrderByItemNode: (node) => 1 + count(node.expression),
  SelectNode: (node) => 1 + sum(node.items),
  StarNode: () => 1,
  ExpandNode: (node) => 1 + sum(node.items),
  ExpandItemNode: (node) => {
    const { filter, orderBy, select, expand, apply } = node.options
    return 1 + count(node.path) + count(filter) + count(orderBy) + count(select) + count(expand) + count(apply)
  },
  ApplyNode: (node) => 1 + sum(node.transformations),
  AggregateTransformationNode: (node) => 1 + sum(node.items),
  AggregateExpressionNode: (node) => 1 + count(node.expression),
  AggregateCountNode: (node) => 1 + count(node.path),
  GroupByTransformationNode: (node) => 1 + sum(node.properties) + count(node.apply),
  FilterTransformationNode: (node) => 1 + count(node.predicate),
  ComputeTransformationNode: (node) => 1 + sum(node.items),
  ComputeItemNode: (node) => 1 + count(node.expression),
  OrderByTransformationNode: (node) => 1 + sum(node.items),
  TopTransformationNode: () => 1,
  SkipTransformationNode: () => 1,
}

// A visitor that forgets a kind does not compile; were it to compile, the directive would fail the build.
const { SkipTransformationNode: _forgotten, ...withoutOneKind } = counter
// @ts-expect-error Property 'SkipTransformationNode' is missing
const incomplete: ExpressionVisitor<number> = withoutOneKind
void incomplete
void _forgotten

t.test('a full visitor reaches every node the parser counted', async (t) => {
  for (const [text, parse] of [
    [
      "Goods/any(g: g/Quantity gt 5 and not contains(g/Code, 'x')) or Code in (1,2) or cast(A, Edm.String) eq @p or isof(Ns.T)",
      parseFilter,
    ],
    ['Items($filter=Goods/$count($filter=A gt 1) gt 0;$orderby=A desc;$select=A,*;$expand=B($apply=top(1)))', parseExpand],
    ['groupby((A/B),filter(C)/compute(D as E)/aggregate(F with sum as G,$count as H,I/$count as J))/orderby(K)/skip(1)', parseApply],
  ] as const) {
    const statistics = { tokens: 0, nodes: 0 }
    const node = parse(text, { option: '$x', statistics })
    // The parser builds one path node it then replaces (I/$count as J), so counting may differ by that.
    t.ok(Math.abs(count(node) - statistics.nodes) <= 1, `${text}: ${count(node)} nodes visited, ${statistics.nodes} counted`)
  }
})

t.test('nodes are frozen, with their arrays', async (t) => {
  const node = parseFilter("Name in ('a','b') and contains(Code,'x')", { option: '$filter' })
  t.ok(Object.isFrozen(node))
  t.ok(BinaryOperationNode.is(node))
  if (node.kind !== 'BinaryOperationNode' || node.left.kind !== 'InNode' || node.left.right.kind !== 'ListNode')
    throw new Error('unexpected shape')
  t.ok(Object.isFrozen(node.left.right.items))
  t.throws(() => {
    ;(node as { operator: string }).operator = 'or'
  }, TypeError)
})

t.test('is() guards and create() factories', async (t) => {
  const literal = LiteralNode.create('Edm.Int32', 5, 3)
  t.same(literal, { kind: 'LiteralNode', position: 3, type: 'Edm.Int32', value: 5 })
  t.ok(LiteralNode.is(literal))
  t.notOk(MemberPathNode.is(literal))
  const path = MemberPathNode.create('implicit', null, [], 0)
  t.ok(MemberPathNode.is(path))
  t.ok(Object.isFrozen(path.segments))
})
