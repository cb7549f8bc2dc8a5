// A single request counts one operation against its profile's rate rules (decisions.md §8), whatever it
// asks; a `$batch` counts its operations instead, after its plan (src/batch/run-batch.ts). Resolves when
// the request may run, rejects with `429 RateLimited` (Retry-After) when a rule refuses it. The rejection
// is marked handled at once: a body may still be arriving when it settles, and the request awaits it later.
import type { SubjectModel } from '../model/model.js'
import { rateLimited } from '../limits/rate-limiter.js'
import type { ServiceContext } from '../service/service-context.js'

/** A profile without rate rules admits every request: one settled promise serves them all. */
const ADMITTED: Promise<void> = Promise.resolve()

export function admitRequest(context: ServiceContext, subject: SubjectModel): Promise<void> {
  if (subject.profile.rateRules.length === 0) return ADMITTED
  const admission = context.rateLimiter.consume(subject, 1).then((decision) => {
    if (!decision.allowed) throw rateLimited(decision, 1)
  })
  admission.catch(() => undefined)
  return admission
}
