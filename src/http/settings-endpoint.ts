// `<service root>/$settings`: the service's settings, read and changed at run time by an administrator
// (decisions.md §8; a profile with `administer: true`). Not an OData resource: it is in no `$metadata`,
// and its `$` keeps it apart from every entity set name.
//
//   GET    → 200 {"settings": {…}, "sources": {"maxBatchOperations": "administrator" | "environment" |
//            "configuration" | "default", …}}
//   PATCH  → a JSON merge patch of the administrator's values ({"maxBatchOperations": 50}; null removes
//            one); persisted in MySQL before it takes effect; 200 with the new view, or 400 InvalidSetting
//            naming every bad member, nothing changed.
//   other  → 405 with Allow.
import { ODataError } from '../errors.js'
import type { ServiceContext } from '../service/service-context.js'
import type { SubjectModel } from '../model/model.js'
import type { HttpResponse } from 'uWebSockets.js'
import { readBody } from './read-body.js'
import type { Responder } from './responder.js'

/** The path under a service root. */
export const SETTINGS_PATH = '$settings'
/** A settings change is a few members: a larger body is not one. */
const MAX_BODY_BYTES = 16 * 1024

export interface SettingsRequest {
  readonly res: HttpResponse
  readonly responder: Responder
  readonly method: string
  readonly headers: ReadonlyMap<string, string>
  readonly subject: SubjectModel
  /** The rate rules' word on this request (admit-request.ts): awaited before anything is read or changed. */
  readonly admission: Promise<void>
}

/** Answers the request; resolves when the answer is sent, rejects with the ODataError to answer. */
export async function handleSettings(context: ServiceContext, request: SettingsRequest): Promise<void> {
  if (!request.subject.profile.administer) {
    throw new ODataError('Forbidden', `The profile ${request.subject.profile.name} may not administer the service's settings`)
  }
  if (request.method === 'GET' || request.method === 'HEAD') {
    await request.admission
    return answer(context, request)
  }
  if (request.method !== 'PATCH') {
    throw new ODataError('MethodNotAllowed', `${request.method} is not allowed on ${SETTINGS_PATH}; allowed: GET, PATCH`, {
      headers: { Allow: 'GET, PATCH' },
    })
  }
  const body = await readBody(request.res, request.headers, MAX_BODY_BYTES, request.responder)
  await request.admission
  let patch: unknown
  try {
    patch = JSON.parse(body.toString('utf8'))
  } catch {
    throw new ODataError('InvalidBody', 'The settings change is not valid JSON')
  }
  await context.settings.change(context.pool, patch)
  answer(context, request)
}

function answer(context: ServiceContext, request: SettingsRequest): void {
  request.responder.sendJson(200, JSON.stringify(context.settings.view()), { 'Cache-Control': 'no-store' })
}
