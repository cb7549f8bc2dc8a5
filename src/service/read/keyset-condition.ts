// "After the last row of the previous page" under an ORDER BY, as a condition an index can seek with:
//   (a > ?) OR (a = ? AND b > ?) OR (a = ? AND b = ? AND c > ?)
// with each comparison turned for descending items. MySQL sorts NULL first (ascending), so after a NULL
// come the non-NULL values of that item, and a descending item's NULLs come after every value; items
// that cannot be NULL (columns of the root table declared NOT NULL) skip those branches, which keeps
// the condition a plain range for the optimizer.
import { BoundComparison, BoundLiteral, BoundLogical, type BoundExpression, type BoundOrderItem } from '../../odata/bind/index.js'

export function keysetCondition(order: readonly BoundOrderItem[], last: readonly BoundLiteral[]): BoundExpression {
  const branches: BoundExpression[] = []
  for (let i = 0; i < order.length; i++) {
    const equalities = order.slice(0, i).map((item, j) => equalTo(item.expression, last[j]!))
    const after = afterValue(order[i]!, last[i]!)
    if (after === BoundLiteral.FALSE) continue
    branches.push(BoundLogical.all([...equalities, after], BoundLiteral.TRUE))
  }
  return BoundLogical.any(branches, BoundLiteral.FALSE)
}

function equalTo(expression: BoundExpression, value: BoundLiteral): BoundExpression {
  return BoundComparison.create('eq', expression, value)
}

function afterValue(item: BoundOrderItem, value: BoundLiteral): BoundExpression {
  const expression = item.expression
  if (value.value === null) {
    // Ascending: NULLs came first, every value follows. Descending: NULLs come last, nothing follows.
    return item.descending ? BoundLiteral.FALSE : BoundComparison.create('ne', expression, BoundLiteral.NULL)
  }
  if (!item.descending) return BoundComparison.create('gt', expression, value)
  const below = BoundComparison.create('lt', expression, value)
  return mayBeNull(expression) ? BoundLogical.create('or', below, BoundComparison.create('eq', expression, BoundLiteral.NULL)) : below
}

/** A NOT NULL column of the query's own rows cannot be NULL; joined rows and computed values can. */
function mayBeNull(expression: BoundExpression): boolean {
  return !(expression.kind === 'BoundProperty' && expression.range.origin.kind === 'root' && !expression.column.property.nullable)
}
