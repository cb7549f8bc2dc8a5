// The JSON batch response (OData 4.01): `{"responses":[…]}`, each item with `id`, `atomicityGroup` when
// the request had one, `status`, `headers` (canonical names: canonical-header-name.ts) and `body` (a JSON
// value when the operation answered JSON, else a string). Items are written as their step completes. In a
// failed atomicity group the failed operation keeps its error and every other member is 424
// (service.md §4.4 rule 3, decisions.md §7).
import { ODataError } from '../../errors.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { errorResponse, type CollectedResponse } from '../execute/collecting-sink.js'
import type { BatchResultWriter, OperationOutcome } from '../execute/execute-batch.js'
import type { PlannedOperation, PlanStep } from '../plan/plan-batch.js'
import { canonicalHeaderName } from './canonical-header-name.js'

function item(planned: PlannedOperation, response: CollectedResponse): string {
  const operation = planned.operation
  let text = '{'
  if (operation.id !== undefined) text += `"id":${JSON.stringify(operation.id)},`
  if (operation.atomicityGroup !== undefined) text += `"atomicityGroup":${JSON.stringify(operation.atomicityGroup)},`
  text += `"status":${response.status}`
  const headers = Object.entries(response.headers).filter(([name]) => name.toLowerCase() !== 'content-length')
  if (headers.length > 0)
    text += `,"headers":{${headers.map(([name, value]) => `${JSON.stringify(canonicalHeaderName(name))}:${JSON.stringify(value)}`).join(',')}}`
  if (response.body.length > 0) {
    const isJson = /json/i.test(response.headers['Content-Type'] ?? '')
    text += `,"body":${isJson ? response.body : JSON.stringify(response.body)}`
  }
  return `${text}}`
}

export class JsonBatchWriter implements BatchResultWriter {
  private count = 0

  constructor(
    private readonly sink: ResponseSink,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  private emit(text: string): void {
    if (this.count === 0) this.sink.begin(200, { ...this.headers, 'Content-Type': 'application/json;odata.metadata=minimal;charset=utf-8' })
    this.sink.write(`${this.count === 0 ? '{"responses":[' : ','}${text}`)
    this.count++
  }

  operation(outcome: OperationOutcome): void {
    this.emit(item(outcome.planned, outcome.response))
  }

  changeSet(
    step: Extract<PlanStep, { kind: 'changeSet' }>,
    outcomes: readonly OperationOutcome[],
    failed: OperationOutcome | undefined,
  ): void {
    step.operations.forEach((planned, i) => {
      // Outcomes come in the order of the operations; the search is for anything else.
      const outcome = outcomes[i]?.planned === planned ? outcomes[i] : outcomes.find((o) => o.planned === planned)
      if (!failed) {
        this.emit(item(planned, outcome!.response))
      } else if (failed.planned === planned) {
        this.emit(item(planned, failed.response))
      } else {
        const reason = new ODataError(
          'FailedDependency',
          `Not applied: operation ${failed.planned.operation.id ?? failed.planned.operation.index + 1} of the same atomicity group failed`,
        )
        this.emit(item(planned, errorResponse(reason)))
      }
    })
  }

  finish(): void {
    if (this.count === 0)
      this.sink.send(200, { ...this.headers, 'Content-Type': 'application/json;odata.metadata=minimal;charset=utf-8' }, '{"responses":[]}')
    else this.sink.end(']}')
  }
}
