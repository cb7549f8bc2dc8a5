// A virtual-table call as a source, the way src/sql/entity-set-sources.ts makes entity sets sources:
// given the function resolved from the path, its parameters (parentheses and query string) and the parsed
// query options of the read, `prepareCall` finds the implementation (501 when there is none), reads the
// arguments, decides the columns the call fills and its grouping (grouping.ts) and binds the Condition;
// `virtualTableSource` then asks the implementation for its rows and gives them as a QueryableSource
// (result-source.ts) for the read pipeline of src/service. Nothing here answers a request.
import { ODataError } from '../errors.js'
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import type { QueryableSource } from '../odata/bind/index.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { RecordCondition } from './condition.js'
import { callShape, type CallOptions } from './grouping.js'
import { registerTables } from './register-tables.js'
import { resultSource } from './result-source.js'
import type { SqlRunner } from './sql-runner.js'
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

/**
 * A call made ready for its implementation: the function's implementation (501 when there is none),
 * its arguments from both places, the columns it fills and its grouping (from the parsed read options),
 * and its Condition bound. `custom` are the query string's non-system parameters.
 */
export function prepareCall(
  model: ServiceModel,
  path: FunctionCall,
  custom: ReadonlyMap<string, string>,
  options: CallOptions,
): { table: VirtualTable; call: VirtualTableCall } {
  const signature = path.function
  const table = virtualTableFor(path.set, signature.name)
  const tables = registerTables(model, path.set)
  if (table === undefined || tables === undefined)
    throw new ODataError('NotImplemented', `${signature.name} of ${path.set.name} is not available`)
  const args = parseVirtualTableArguments(path.set, signature, path.parameters, custom)
  table.checkArguments?.(args, tables)
  const shape = callShape(table, tables, signature, args, options)
  const context = {
    resolve: entitySetSources(model),
    namespace: model.namespace,
    parameterAlias: (name: string) => custom.get(`@${name}`),
    limits: options.limits,
  }
  const conditionText = args.conditions.get('Condition')
  const condition =
    conditionText === undefined
      ? undefined
      : table.bindCondition !== undefined
        ? table.bindCondition(conditionText, args, tables, context, signature)
        : RecordCondition.bind(
            conditionText,
            tables.records,
            new Set([...table.groupableColumns(tables, args), ...table.conditionColumns(args, tables)]),
            context,
          )
  return { table, call: { model, register: path.set, tables, signature, arguments: args, ...shape, condition, context } }
}

/** The rows of a prepared call as a queryable source. */
export async function virtualTableSource(
  prepared: { table: VirtualTable; call: VirtualTableCall },
  run: SqlRunner,
): Promise<QueryableSource> {
  const relation = await prepared.table.relation(prepared.call, run)
  return resultSource(prepared.call, relation, prepared.table)
}
