// A write request → its operation. Everything that can be checked without the database is checked here,
// before any SQL: the profile may write the set, the response format is acceptable, the body is JSON of
// the right shape and every value fits its property. The operation returned then runs inside a
// transaction its caller owns (run-write.ts for a single request, `$batch` for a change set).
import { ODataError } from '../../errors.js'
import type { EntitySetModel } from '../../model/model.js'
import { authorizeWrite } from '../authorize.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { prepareAction } from './write-action.js'
import { prepareRecordDelete, prepareRecordUpdate, prepareRecordWrite } from './write-information-register.js'
import { prepareCreate, prepareDelete, prepareUpdate, type WriteOperation } from './write-object.js'
import { prepareRecordSetWrite } from './write-record-set.js'

export type { WriteOperation }

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** True for the requests prepareWrite serves: POST to a set, PUT/PATCH/DELETE of an entity, a bound action. */
export function isWriteRequest(request: ServiceRequest): boolean {
  const kind = request.path.kind
  return WRITE_METHODS.has(request.method) && (kind === 'entity' || kind === 'action' || (kind === 'collection' && !request.path.count))
}

function notAllowed(request: ServiceRequest, set: EntitySetModel): ODataError {
  return new ODataError('MethodNotAllowed', `${request.method} is not allowed on ${set.name}`)
}

export function prepareWrite(context: ServiceContext, request: ServiceRequest): WriteOperation {
  const path = request.path
  const method = request.method
  if (path.kind === 'action') {
    authorizeWrite(request.subject, path.set)
    if (method !== 'POST') throw notAllowed(request, path.set)
    return prepareAction(context, request, path.set, path.key, path.action)
  }
  if (path.kind !== 'collection' && path.kind !== 'entity') throw new ODataError('MethodNotAllowed', `${method} is not allowed here`)
  const set = path.set
  authorizeWrite(request.subject, set)
  const allowed = path.kind === 'collection' ? set.collectionMethods : set.entityMethods
  if (!allowed.includes(method)) throw notAllowed(request, set)
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
      throw notAllowed(request, set)
  }
}
