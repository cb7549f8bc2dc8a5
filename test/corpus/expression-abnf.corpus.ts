// The OASIS ABNF test cases about expressions (see abnf-cases.ts for which apply and how): each is
// accepted or rejected as its FailAt says, except the cases of the allow-list, which must disagree.
import t from 'tap'
import { CORPUS_ALLOW_LIST } from './abnf-allow-list.js'
import { checksOf, loadCorpusCases, runCheck, type CorpusCase } from './abnf-cases.js'

const allowed = new Map<string, string>()
for (const { reason, keys } of CORPUS_ALLOW_LIST) for (const key of keys) allowed.set(key, reason)

const cases = loadCorpusCases()
let run = 0
let agreeing = 0
let allowListed = 0
let rejectionsCompared = 0
let positionsAgreeing = 0
const allowListHits = new Set<string>()

t.test('every applicable case agrees, or is allow-listed and disagrees', async (t) => {
  for (const corpusCase of cases) {
    const checks = checksOf(corpusCase)
    if (checks.length === 0) continue
    run++
    const key = checks[0].key
    let agrees = true
    let detail = ''
    for (const check of checks) {
      const outcome = runCheck(check)
      if (outcome.error !== undefined && !isExpectedErrorShape(outcome.error)) {
        t.fail(`${key}: threw something other than an ODataError`, { error: outcome.error })
      }
      if (outcome.accepted !== check.expectAccepted) {
        agrees = false
        detail = `${check.option}=${check.text}: ${describeOutcome(outcome)}`
      } else if (!check.expectAccepted && outcome.failAt !== undefined) {
        rejectionsCompared++
        if (outcome.failAt === corpusCase.failAt) positionsAgreeing++
      }
    }
    const reason = allowed.get(key)
    if (reason !== undefined) {
      allowListed++
      allowListHits.add(key)
      t.notOk(agrees, `allow-listed case now agrees, remove it from the list: ${describe(corpusCase)}`)
    } else {
      if (agrees) agreeing++
      t.ok(agrees, `${describe(corpusCase)}${agrees ? '' : ` — ${detail}`}`)
    }
  }
  for (const key of allowed.keys()) {
    if (!allowListHits.has(key)) t.fail(`allow-list entry matches no applicable corpus case: ${key}`)
  }
})

t.test('figures', async (t) => {
  t.comment(`corpus cases: ${cases.length} in the files, ${run} about expressions and run`)
  t.comment(
    `agree: ${agreeing}; allow-listed (deliberate disagreement): ${allowListed}; disagree otherwise: ${run - agreeing - allowListed}`,
  )
  t.comment(`rejections whose failure position could be compared: ${rejectionsCompared}; same position as FailAt: ${positionsAgreeing}`)
  t.equal(run - agreeing - allowListed, 0, 'no unexplained disagreement')
})

function describe(corpusCase: CorpusCase): string {
  const expectation = corpusCase.failAt === undefined ? 'accept' : `reject at ${corpusCase.failAt}`
  return `${corpusCase.file} "${corpusCase.name}" (${corpusCase.rule}, ${expectation}): ${corpusCase.input}`
}

function describeOutcome(outcome: { accepted: boolean; error: unknown }): string {
  if (outcome.accepted) return 'accepted'
  if (outcome.error instanceof Error) return outcome.error.message
  return "parsed, but not as a literal of the rule's type"
}

function isExpectedErrorShape(error: unknown): boolean {
  return error instanceof Error && error.name === 'ODataError' && typeof (error as { code?: unknown }).code === 'string'
}
