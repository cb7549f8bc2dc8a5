// GET of a virtual table (service.md §4.2): `…/<Register>/<Function>(…)` and `…/StandardODATA.<Function>(…)`,
// parameters in the parentheses or the query string, and `/$count`. The call becomes a queryable source
// (virtual-table.ts) and then the read pipeline runs over it like over any collection: $filter,
// $orderby, $select, $expand (after grouping), $apply, $top, $skip, $count, server-driven paging, and
// rows streamed with backpressure.
import { ODataError } from '../errors.js'
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { authorizeRead } from '../service/authorize.js'
import { parseReadOptions, type ParsedReadOptions } from '../service/read/parsed-read-options.js'
import { poolRunner } from '../service/read/query-runner.js'
import { readCount } from '../service/read/read-count.js'
import { readRows, type RowsTarget } from '../service/read/read-rows.js'
import type { ServiceContext } from '../service/service-context.js'
import type { ServiceRequest } from '../service/service-request.js'
import { RecordCondition } from './condition.js'
import { callShape } from './grouping.js'
import { registerTables } from './register-tables.js'
import { resultSource } from './result-source.js'
import { parseVirtualTableArguments } from './virtual-table-arguments.js'
import { virtualTableFor } from './virtual-table-registry.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export interface FunctionCall {
  readonly set: EntitySetModel
  readonly function: VirtualTableSignature
  /** The parameters written in the parentheses, by name, as written. */
  readonly parameters: ReadonlyMap<string, string>
  readonly count: boolean
}

export async function readVirtualTable(context: ServiceContext, request: ServiceRequest, sink: ResponseSink, path: FunctionCall): Promise<void> {
  authorizeRead(request.subject, path.set)
  const options = parseReadOptions(request, path.count ? 'count' : 'collection')
  const { table, call } = prepareCall(context.model, path, request.query.custom, options)
  const relation = await table.relation(call, poolRunner(context.pool))
  const model = context.model
  const signature = path.function
  const parameters = [...path.parameters].map(([name, value]) => `${name}=${value}`).join(',')
  const target: RowsTarget = {
    base: resultSource(call, relation, table.grouped),
    contextName: signature.resultIsEntity ? path.set.name : `Collection(${model.namespace}.${signature.resultType})`,
    resourcePath: `${encodeURIComponent(path.set.name)}/${signature.name}(${encodeURIComponent(parameters)})`,
    conditions: () => [],
    fingerprint: `${path.set.name}/${signature.name}(${parameters})?${[...request.query.custom].filter(([name]) => name !== 'token').map(([n, v]) => `${n}=${v}`).join('&')}`,
  }
  if (path.count) await readCount(context, request, sink, target)
  else await readRows(context, request, sink, target)
}

/**
 * A call made ready for its implementation: the function's implementation (501 when there is none
 * yet), its arguments from both places, the columns it fills and its grouping (from the parsed read
 * options), and its Condition bound. `custom` are the query string's non-system parameters.
 */
export function prepareCall(model: ServiceModel, path: FunctionCall, custom: ReadonlyMap<string, string>, options: ParsedReadOptions): { table: VirtualTable; call: VirtualTableCall } {
  const signature = path.function
  const table = virtualTableFor(path.set, signature.name)
  const tables = registerTables(model, path.set)
  if (table === undefined || tables === undefined) throw new ODataError('NotImplemented', `${signature.name} of ${path.set.name} is not available yet`)
  const args = parseVirtualTableArguments(path.set, signature, path.parameters, custom)
  const shape = callShape(table, tables, signature, args, options)
  const conditionText = args.conditions.get('Condition')
  const condition =
    conditionText === undefined
      ? undefined
      : RecordCondition.bind(conditionText, tables.records, new Set([...table.groupableColumns(tables), ...table.conditionColumns(args, tables)]), {
          resolve: entitySetSources(model),
          namespace: model.namespace,
          parameterAlias: (name) => custom.get(`@${name}`),
          limits: options.limits,
        })
  return { table, call: { model, register: path.set, tables, signature, arguments: args, ...shape, condition } }
}
