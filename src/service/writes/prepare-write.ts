// A write request → its operation. The dispatcher (handle-request.ts) has admitted it (the method is one
// the resource accepts, the profile may write the set); everything else that can be checked without the
// database is checked here, before any SQL: the response format is acceptable, the body is JSON of the
// right shape and every value fits its property. The operation returned then runs inside a transaction
// its caller owns (run-write.ts: one of its own, or the change set's).
import { ODataError } from '../../errors.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { prepareAction } from './write-action.js'
import { prepareRecordDelete, prepareRecordUpdate, prepareRecordWrite } from './write-information-register.js'
import { prepareCreate, prepareDelete, prepareUpdate, type WriteOperation } from './write-object.js'
import { prepareRecordSetWrite } from './write-record-set.js'

export type { WriteOperation }

/** A write the dispatcher should not have admitted: a model whose methods and writers disagree. */
function noWriter(request: ServiceRequest, what: string): ODataError {
  return new ODataError('InternalError', `No write serves ${request.method} on ${what}`)
}

export function prepareWrite(context: ServiceContext, request: ServiceRequest): WriteOperation {
  const path = request.path
  const method = request.method
  if (path.kind === 'action') return prepareAction(context, request, path.set, path.key, path.action)
  if (path.kind !== 'collection' && path.kind !== 'entity') throw noWriter(request, path.kind)
  const set = path.set
  switch (set.kind) {
    case 'Catalog':
    case 'Document':
      if (path.kind === 'collection') return prepareCreate(context, request, set)
      if (method === 'DELETE') return prepareDelete(context, request, set, path.key)
      return prepareUpdate(context, request, set, path.key, method === 'PATCH' ? 'merge' : 'replace')
    case 'InformationRegister':
      if (path.kind === 'collection') return prepareRecordWrite(context, request, set)
      if (method === 'DELETE') return prepareRecordDelete(context, request, set, path.key)
      return prepareRecordUpdate(context, request, set, path.key)
    case 'AccumulationRegister':
    case 'AccountingRegister':
      return prepareRecordSetWrite(context, request, set, path.kind === 'entity' ? path.key : undefined)
    default:
      throw noWriter(request, set.name)
  }
}
