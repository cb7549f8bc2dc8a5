// Who is calling (decisions.md §1): HTTP Basic on the reference flavour; a token on the token flavour,
// from `Authorization: Bearer`, the `token` query parameter, or the path. Missing or unknown credentials
// are `401`; what a subject may read or write is checked later, per entity set, from its profile.
import { timingSafeEqual } from 'node:crypto'
import { ODataError } from '../errors.js'
import type { ServiceModel, SubjectModel } from '../model/model.js'
import type { Flavour } from '../model/flavour.js'

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

export interface Credentials {
  readonly authorization: string | undefined
  readonly queryToken: string | undefined
  readonly pathToken: string | undefined
}

function unauthorized(flavour: Flavour, message: string): ODataError {
  const challenge = flavour === 'reference' ? 'Basic realm="odata", charset="UTF-8"' : 'Bearer realm="odata"'
  return new ODataError('Unauthorized', message, { headers: { 'WWW-Authenticate': challenge } })
}

export class Authenticator {
  private readonly byToken = new Map<string, SubjectModel>()
  private readonly byName = new Map<string, SubjectModel>()

  constructor(model: ServiceModel) {
    for (const subject of model.subjects) {
      if (subject.token !== undefined) this.byToken.set(subject.token, subject)
      this.byName.set(subject.name, subject)
    }
  }

  authenticate(flavour: Flavour, credentials: Credentials): SubjectModel {
    return flavour === 'reference' ? this.basic(credentials.authorization) : this.token(credentials)
  }

  private basic(authorization: string | undefined): SubjectModel {
    if (!authorization || !/^basic /i.test(authorization))
      throw unauthorized('reference', 'This service root needs HTTP Basic authentication')
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const subject = colon < 0 ? undefined : this.byName.get(decoded.slice(0, colon))
    if (!subject || subject.password === undefined || !constantTimeEqual(subject.password, decoded.slice(colon + 1))) {
      throw unauthorized('reference', 'Unknown user name or wrong password')
    }
    return subject
  }

  private token(credentials: Credentials): SubjectModel {
    const fromHeader =
      credentials.authorization && /^bearer /i.test(credentials.authorization) ? credentials.authorization.slice(7).trim() : undefined
    const token = credentials.pathToken ?? fromHeader ?? credentials.queryToken
    if (!token)
      throw unauthorized(
        'token',
        'This service root needs a token: Authorization: Bearer <token>, ?token=<token>, or /t/<token>/ in the path',
      )
    const subject = this.byToken.get(token)
    if (!subject) throw unauthorized('token', 'Unknown token')
    return subject
  }
}
