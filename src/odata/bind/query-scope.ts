// One FROM clause: a root range and the reference ranges joined to it. The top-level query is a scope;
// so is every lambda and `$count` subquery, and the input of every `$apply` transformation. A join is
// made once per (range, navigation), so `Product/Description eq 'x' and Product/Code eq 'y'` reads one
// joined row, and it belongs to the scope of the range it starts from: a path through the lambda
// variable joins inside the subquery, a path from `$it` joins in the outer query.
import type { Range } from './range.js'
import type { CollectionNavigation, QueryableSource, ReferenceNavigation } from './queryable-source.js'
import type { SourceResolver } from './queryable-source.js'

export class QueryScope {
  readonly root: Range
  /** Reference ranges in the order they were made: a join's parent always comes before it. */
  readonly joins: Range[] = []
  private readonly joinByKey = new Map<Range, Map<string, Range>>()

  private constructor(source: QueryableSource, origin: Range['origin']) {
    this.root = Object.freeze({ source, origin, scope: this })
  }

  /** The scope of a query over `source`. */
  static over(source: QueryableSource): QueryScope {
    return new QueryScope(source, { kind: 'root' })
  }

  /** The scope of a subquery over the members of a collection navigation from `parent`. */
  static members(parent: Range, navigation: CollectionNavigation, resolve: SourceResolver): QueryScope {
    return new QueryScope(resolve(navigation.targetSet), { kind: 'collection', parent, navigation })
  }

  /** The row `navigation` leads to from `parent` (a range of this scope), joined once. */
  join(parent: Range, navigation: ReferenceNavigation, resolve: SourceResolver): Range {
    let byName = this.joinByKey.get(parent)
    if (!byName) this.joinByKey.set(parent, (byName = new Map()))
    let range = byName.get(navigation.name)
    if (!range) {
      range = Object.freeze({
        source: resolve(navigation.targetSet),
        origin: { kind: 'reference' as const, parent, navigation },
        scope: this,
      })
      byName.set(navigation.name, range)
      this.joins.push(range)
    }
    return range
  }
}
