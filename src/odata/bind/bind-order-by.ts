// `$orderby` items bound against a range (the query's root). Any single value may be an item, paths
// through references included (`Product/Description desc`); SurrogateKey is refused by the path binder.
import type { OrderByItemNode } from '../expression/index.js'
import type { BindEnvironment } from './bind-environment.js'
import { bindError } from './bind-error.js'
import { bindExpression } from './expression-binder.js'
import type { BoundOrderItem } from './bound/bound-order-item.js'

export function bindOrderBy(items: readonly OrderByItemNode[], environment: BindEnvironment): BoundOrderItem[] {
  return items.map((item) => {
    const expression = bindExpression(item.expression, environment)
    if (expression.type === 'Null') throw bindError(environment.context, item.position, 'null is not something to order by')
    return { expression, descending: item.direction === 'desc' }
  })
}
