// The SQL the service runs to export a whole set: every column in key order, made by the read pipeline's own
// planner, so that a benchmark's raw-stream baseline reads exactly what the service reads.
import type { ServiceModel } from '../../src/model/model.js'
import { BoundProperty, QueryScope } from '../../src/odata/bind/index.js'
import { entitySetSources } from '../../src/sql/entity-set-sources.js'
import { QueryCompiler } from '../../src/sql/query-compiler.js'

export function exportSelectSql(model: ServiceModel, set: string): string {
  const source = entitySetSources(model)(set)
  const scope = QueryScope.over(source)
  return new QueryCompiler().compileSelect({
    scope,
    columns: source.columns.map((column) => ({ expression: BoundProperty.create(scope.root, column) })),
    where: [],
    orderBy: source.rowKey.map((column) => ({ expression: BoundProperty.create(scope.root, column), descending: false })),
  }).text
}
