// One expanded navigation of a read. Rows are expanded a batch at a time (stream-rows.ts): the keys of
// the batch are collected and the related rows read with one query per navigation and level —
// `WHERE Ref_Key IN (…)` for references, `WHERE Ref_Key IN (…)` / `Recorder IN (…)` for table parts and
// record sets — so a page of 500 documents costs one query for their goods, not 500, and memory holds one
// batch. Collections are ordered in SQL (by parent, then the nested `$orderby`, then the row key);
// nested `$top`/`$skip` are applied per parent while grouping.
import { EMPTY_GUID } from '../../model/model.js'
import {
  BoundComparison,
  BoundIn,
  BoundLiteral,
  BoundProperty,
  type BoundExpandItem,
  type BoundExpression,
  type BoundOrderItem,
  type Range,
  type SourceColumn,
} from '../../odata/bind/index.js'
import { QueryCompiler } from '../../sql/query-compiler.js'
import type { Projection, Row } from './projection.js'
import { tupleKey } from './projection.js'
import type { QueryRunner } from './query-runner.js'
import { loadExpansions, writeObject } from './row-object.js'
import type { RowShape } from './row-shape.js'

/** At most this many keys in one IN list; a batch with more distinct keys runs several queries. */
const MAX_KEYS_PER_QUERY = 1000

export class Expansion {
  readonly name: string
  private readonly parentPositions: number[]
  private readonly childKeyPositions: number[]
  private readonly childKeyColumns: SourceColumn[]
  private readonly collection: boolean
  /** Related rows of the current batch, by the parent's key tuple. */
  private rowsByParent = new Map<string, Row[]>()
  private countByParent = new Map<string, number>()

  constructor(
    readonly item: BoundExpandItem,
    parentRange: Range,
    parentProjection: Projection,
    readonly child: RowShape,
  ) {
    const navigation = item.navigation
    this.name = navigation.name
    this.collection = navigation.kind === 'collection'
    const target = child.scope.root
    if (navigation.kind === 'reference') {
      this.parentPositions = [parentProjection.addColumn(parentRange, navigation.foreignKey)]
      const key = target.source.rowKey
      if (key.length !== 1) throw new Error(`internal: ${target.source.name} is not referable by one key column`)
      this.childKeyColumns = [key[0]!]
    } else {
      this.parentPositions = navigation.links.map((link) => parentProjection.addColumn(parentRange, link.parent))
      this.childKeyColumns = navigation.links.map((link) => target.source.columnByName.get(link.child)!)
    }
    this.childKeyPositions = this.childKeyColumns.map((column) => child.projection.addColumn(target, column))
  }

  /** Reads the related rows of a batch of parent rows (and, recursively, their own expansions). */
  async load(parents: readonly Row[], run: QueryRunner): Promise<void> {
    this.rowsByParent = new Map()
    this.countByParent = new Map()
    const firstValues = new Set<unknown>()
    const wanted = new Set<string>()
    for (const parent of parents) {
      const values = this.parentPositions.map((p) => parent[p])
      // An empty reference (the all-zero GUID) leads nowhere.
      if (values[0] === null || values[0] === undefined || (!this.collection && values[0] === EMPTY_GUID)) continue
      wanted.add(tupleKey(values))
      firstValues.add(values[0])
    }
    if (wanted.size === 0) return
    const keys = [...firstValues]
    const related: Row[] = []
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_QUERY) {
      related.push(...(await run(this.query(keys.slice(i, i + MAX_KEYS_PER_QUERY)))))
    }
    const kept: Row[] = []
    for (const row of related) {
      const key = tupleKey(this.childKeyPositions.map((p) => row[p]))
      // The IN list matched the first key column only: the full tuple decides (a record set's Recorder_Type).
      if (!wanted.has(key)) continue
      let group = this.rowsByParent.get(key)
      if (!group) this.rowsByParent.set(key, (group = []))
      group.push(row)
    }
    for (const [key, group] of this.rowsByParent) {
      this.countByParent.set(key, group.length)
      const skip = this.item.skip ?? 0
      const sliced =
        skip > 0 || this.item.top !== null ? group.slice(skip, this.item.top === null ? undefined : skip + this.item.top) : group
      this.rowsByParent.set(key, sliced)
      kept.push(...sliced)
    }
    if (kept.length > 0) await loadExpansions(this.child, kept, run)
  }

  private query(keys: readonly unknown[]) {
    const scope = this.child.scope
    const first = this.childKeyColumns[0]!
    const where: BoundExpression[] = [
      keys.length === 1
        ? BoundComparison.create(
            'eq',
            BoundProperty.create(scope.root, first),
            BoundLiteral.create(literalType(first), keys[0] as string | number),
          )
        : BoundIn.create(
            BoundProperty.create(scope.root, first),
            keys.map((k) => BoundLiteral.create(literalType(first), k as string | number)),
          ),
    ]
    if (this.item.filter !== null) where.push(this.item.filter)
    const orderBy: BoundOrderItem[] = []
    if (this.collection) {
      for (const column of this.childKeyColumns) orderBy.push({ expression: BoundProperty.create(scope.root, column), descending: false })
      orderBy.push(...this.item.orderBy)
      for (const column of scope.root.source.rowKey)
        orderBy.push({ expression: BoundProperty.create(scope.root, column), descending: false })
    }
    return new QueryCompiler().compileSelect({ scope, columns: this.child.projection.columns, where, orderBy })
  }

  /** `"Name":…` for one parent row of the loaded batch. */
  write(parent: Row): string {
    const key = tupleKey(this.parentPositions.map((p) => parent[p]))
    const rows = this.rowsByParent.get(key)
    const name = JSON.stringify(this.name)
    if (!this.collection) return `${name}:${rows === undefined ? 'null' : writeObject(this.child, rows[0]!)}`
    const count = `${JSON.stringify(`${this.name}@odata.count`)}:${this.countByParent.get(key) ?? 0}`
    if (this.item.form === 'count') return count
    let text = this.item.count ? `${count},${name}:[` : `${name}:[`
    if (rows !== undefined) {
      for (let i = 0; i < rows.length; i++) text += (i === 0 ? '' : ',') + writeObject(this.child, rows[i]!)
    }
    return `${text}]`
  }
}

/** Key values are compared as what they are: GUIDs, numbers, or text (ENUM columns are text to the compiler). */
function literalType(column: SourceColumn) {
  return column.type === 'Edm.Guid' || column.type === 'Edm.Int32' || column.type === 'Edm.Int64' ? column.type : 'Edm.String'
}
