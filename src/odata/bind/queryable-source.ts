// What a query reads from, as the binder and the SQL compiler see it: named columns (each a property of
// the model with the SQL column that holds it), navigations to other sources, and the columns that
// identify a row. An entity set is one kind of source (src/sql/entity-set-sources.ts); the result of a
// `$apply` transformation is another (its relation is the transformation over its input), and the
// virtual tables of the functions will be a third (a derived table with result columns). The binder
// and the compiler only ever talk to this interface, so a new kind of source needs no change in either.
import type { EntitySetModel, PropertyModel } from '../../model/model.js'
import type { Statement } from '../../statement.js'
import type { BoundType } from './bound-type.js'
import type { BoundTransformation } from './bound/bound-transformation.js'
import type { QueryScope } from './query-scope.js'

export interface SourceColumn {
  /** The name in expressions and JSON (`Quantity`, `Product_Key`, or a path such as `Product/Description` after a groupby). */
  readonly name: string
  /** Type, storage and role of the value (synthetic for computed and aggregated columns). */
  readonly property: PropertyModel
  /** The type in expressions: the property's Edm type, or a type only computed values have (Edm.Date, Edm.Double). */
  readonly type: BoundType
  /** The column of the relation that holds the value; quoted by the compiler, never from a request. */
  readonly sqlName: string
  /** SurrogateKey (service.md §2.2): readable, but no part of $filter, $orderby or $apply. */
  readonly surrogate: boolean
}

export type SourceRelation =
  /** A table of the store. */
  | { readonly kind: 'table'; readonly table: string }
  /** SQL text made by the service from the model (never from a request), with its own placeholders' values. */
  | { readonly kind: 'derived'; readonly statement: Statement }
  /** A `$apply` transformation applied to the rows of an input scope. */
  | { readonly kind: 'transformed'; readonly input: QueryScope; readonly transformation: BoundTransformation }

/** `Product` from a movement: the foreign key of this source holds the target's key. */
export interface ReferenceNavigation {
  readonly kind: 'reference'
  readonly name: string
  readonly targetSet: string
  readonly foreignKey: SourceColumn
}

/** `Goods`, `RecordSet`: rows of the target whose partner columns equal this source's key columns. */
export interface CollectionNavigation {
  readonly kind: 'collection'
  readonly name: string
  readonly targetSet: string
  /** Pairs in key order: a column of this source and the name of the matching column of the target. */
  readonly links: readonly { readonly parent: SourceColumn; readonly child: string }[]
}

export type SourceNavigation = ReferenceNavigation | CollectionNavigation

export interface SortKey {
  readonly column: SourceColumn
  readonly descending: boolean
}

export interface QueryableSource {
  /** The entity set or result name: in messages and in context URLs. */
  readonly name: string
  readonly relation: SourceRelation
  readonly columns: readonly SourceColumn[]
  readonly columnByName: ReadonlyMap<string, SourceColumn>
  readonly navigationByName: ReadonlyMap<string, SourceNavigation>
  /**
   * Columns that together identify a row and that an index delivers in order: the default order, the
   * tie-breaker appended to every `$orderby`, and the last part of a paging token. Empty when rows have
   * no identity (then there is no server-driven paging).
   */
  readonly rowKey: readonly SourceColumn[]
  /** The order the source's rows come in when nothing else is asked (an `orderby()` transformation); else the row key. */
  readonly ordering: readonly SortKey[]
  /** The entity set whose entities the rows are, when they are (for canonical URLs); undefined for aggregated results. */
  readonly entitySet: EntitySetModel | undefined
}

/** Finds the source of an entity set by name (navigation targets). */
export type SourceResolver = (setName: string) => QueryableSource

export function columnMap(columns: readonly SourceColumn[]): ReadonlyMap<string, SourceColumn> {
  return new Map(columns.map((c) => [c.name, c] as const))
}
