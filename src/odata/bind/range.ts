// A range is one row variable of a query: the source it ranges over and how it is reached. The root
// range is the rows the option applies to; a reference range is a row joined through a single-valued
// navigation (`Product` in `Product/Description`, a LEFT JOIN); a collection range is the member variable
// of a lambda or a `$count` (a correlated subquery). The compiler gives each range an alias when it
// compiles; the binder only needs identity.
import type { CollectionNavigation, QueryableSource, ReferenceNavigation } from './queryable-source.js'
import type { QueryScope } from './query-scope.js'

export type RangeOrigin =
  | { readonly kind: 'root' }
  | { readonly kind: 'reference'; readonly parent: Range; readonly navigation: ReferenceNavigation }
  | { readonly kind: 'collection'; readonly parent: Range; readonly navigation: CollectionNavigation }

export interface Range {
  readonly source: QueryableSource
  readonly origin: RangeOrigin
  /** The scope whose FROM clause introduces this range (its joins live there). */
  readonly scope: QueryScope
}
