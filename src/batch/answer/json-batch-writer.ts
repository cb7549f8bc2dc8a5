// The JSON batch response (OData 4.01): `{"responses":[…]}`, each item with `id`, `atomicityGroup` when
// the request had one, `status`, `headers` (canonical names: canonical-header-name.ts) and `body` (a JSON
// value when the operation answered JSON, else a string). Items are written as their step completes, each
// step's with the next step's and the last with the end. In a failed atomicity group the failed operation
// keeps its error and every other member is 424 (service.md §4.4 rule 3, decisions.md §7).
import { ODataError } from '../../errors.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { errorResponse, type CollectedResponse } from '../execute/collecting-sink.js'
import type { BatchResultWriter, OperationOutcome } from '../execute/execute-batch.js'
import type { PlannedOperation, PlanStep } from '../plan/plan-batch.js'
import { canonicalHeaderName } from './canonical-header-name.js'

/** `"Name":` of a header in an item's `headers`, canonical and quoted; undefined for Content-Length (not carried). */
const memberNames = new Map<string, string | undefined>()

function headerMember(name: string): string | undefined {
  const known = memberNames.get(name)
  if (known !== undefined || memberNames.has(name)) return known
  const member = name.toLowerCase() === 'content-length' ? undefined : `${JSON.stringify(canonicalHeaderName(name))}:`
  // Names come from handlers, a handful in all; the bound only keeps a mistake from growing it.
  if (memberNames.size < 1000) memberNames.set(name, member)
  return member
}

/**
 * The last `"atomicityGroup":"…",` and whether the last Content-Type was JSON: every item of a change set has
 * the same group, and nearly every answer of a batch the same Content-Type, so each is made once, not per item.
 */
const lastGroup = { name: '', member: '' }
const lastContentType = { value: '', isJson: false }

function groupMember(name: string): string {
  if (name !== lastGroup.name || lastGroup.member === '') {
    lastGroup.name = name
    lastGroup.member = `"atomicityGroup":${JSON.stringify(name)},`
  }
  return lastGroup.member
}

function isJsonContentType(contentType: string): boolean {
  if (contentType !== lastContentType.value) {
    lastContentType.value = contentType
    lastContentType.isJson = /json/i.test(contentType)
  }
  return lastContentType.isJson
}

function item(planned: PlannedOperation, response: CollectedResponse): string {
  const operation = planned.operation
  let text = '{'
  if (operation.id !== undefined) text += `"id":${JSON.stringify(operation.id)},`
  if (operation.atomicityGroup !== undefined) text += groupMember(operation.atomicityGroup)
  text += `"status":${response.status}`
  let headers = ''
  let contentType = ''
  for (const name in response.headers) {
    const value = response.headers[name]!
    if (name === 'Content-Type') contentType = value
    const member = headerMember(name)
    if (member !== undefined) headers += `${headers === '' ? '' : ','}${member}${JSON.stringify(value)}`
  }
  if (headers !== '') text += `,"headers":{${headers}}`
  if (response.body.length > 0) text += `,"body":${isJsonContentType(contentType) ? response.body : JSON.stringify(response.body)}`
  return `${text}}`
}

export class JsonBatchWriter implements BatchResultWriter {
  private count = 0
  /** The last text emitted, written with the next one or with the end: a batch of one step is one send. */
  private held: string | undefined

  constructor(
    private readonly sink: ResponseSink,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  /**
   * Writes `count` items, already separated by commas, in one write: a change set of hundreds is one chunk
   * for the socket, not hundreds. The items are concatenated, not joined (a join copies them all once more).
   * Each step's text goes out when the next step's comes, the last with the end.
   */
  private emit(items: string, count: number): void {
    if (count === 0) return
    if (this.count === 0) this.sink.begin(200, { ...this.headers, 'Content-Type': 'application/json;odata.metadata=minimal;charset=utf-8' })
    if (this.held !== undefined) this.sink.write(this.held)
    this.held = (this.count === 0 ? '{"responses":[' : ',') + items
    this.count += count
  }

  operation(outcome: OperationOutcome): void {
    this.emit(item(outcome.planned, outcome.response), 1)
  }

  changeSet(
    step: Extract<PlanStep, { kind: 'changeSet' }>,
    outcomes: readonly OperationOutcome[],
    failed: OperationOutcome | undefined,
  ): void {
    const text = (planned: PlannedOperation, i: number): string => {
      // Outcomes come in the order of the operations; the search is for anything else.
      const outcome = outcomes[i]?.planned === planned ? outcomes[i] : outcomes.find((o) => o.planned === planned)
      if (!failed) return item(planned, outcome!.response)
      if (failed.planned === planned) return item(planned, failed.response)
      const failedName = failed.planned.operation.id ?? failed.planned.operation.index + 1
      const reason = new ODataError(
        'FailedDependency',
        failed.commitOutcomeUnknown
          ? `Outcome unknown: the COMMIT of this atomicity group lost its connection (operation ${failedName}); the group was applied whole or not at all`
          : `Not applied: operation ${failedName} of the same atomicity group failed`,
      )
      return item(planned, errorResponse(reason))
    }
    const operations = step.operations
    let items = ''
    for (let i = 0; i < operations.length; i++) items += (i === 0 ? '' : ',') + text(operations[i]!, i)
    this.emit(items, operations.length)
  }

  finish(): void {
    if (this.count === 0)
      this.sink.send(200, { ...this.headers, 'Content-Type': 'application/json;odata.metadata=minimal;charset=utf-8' }, '{"responses":[]}')
    else this.sink.end(`${this.held}]}`)
  }
}
