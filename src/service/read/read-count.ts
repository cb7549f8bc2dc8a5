// `/$count` of a collection (or of a collection navigation): the number of rows the collection read
// would give without paging, `$top` or `$skip`, as text/plain (OData 4.01 §11.2.10). `$filter` and
// `$apply` shape what is counted.
import { BoundAggregate } from '../../odata/bind/index.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { QueryCompiler } from '../../sql/query-compiler.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { bindRead, whereOf } from './bound-read.js'
import { parseReadOptions } from './parsed-read-options.js'
import { poolRunner } from './query-runner.js'
import type { RowsTarget } from './read-rows.js'

export async function readCount(context: ServiceContext, request: ServiceRequest, sink: ResponseSink, target: RowsTarget): Promise<void> {
  const parsed = target.options ?? parseReadOptions(request, 'count')
  const bound = bindRead(context, request, parsed, target.base, target.conditions)
  const where = whereOf(bound)
  const query = new QueryCompiler().compileSelect({ scope: bound.scope, columns: [{ expression: BoundAggregate.COUNT_ROWS }], where })
  const rows = await poolRunner(context.pool)(query)
  sink.send(200, { 'Content-Type': 'text/plain;charset=utf-8' }, String(rows[0]![0]))
}
