// A workload shape as $batch requests: the operations of one batch of that shape, its body built once
// when nothing in it varies (so that the driver spends its time sending, not building), and what an
// answer tells: the operations' statuses and errors, and the rows written or read.
import { randomUUID } from 'node:crypto'
import { memberOf, readBatchAnswer } from '../shared/batch-answer.js'
import { buildBatchBody, type BuiltBatch, type BatchFormat, type OperationSpec } from '../shared/batch-body.js'
import type { ShapeSpec } from './workload.js'

export interface BuiltShape {
  readonly spec: ShapeSpec
  readonly operations: number
  /** Rows a successful batch writes (table part rows, or documents without any); 0 for reads. */
  readonly rowsWritten: number
  next(): BuiltBatch
}

export interface AnswerFigures {
  readonly operations: number
  readonly rows: number
  /** `status code` → count, for operations that failed. */
  readonly errors: Readonly<Record<string, number>>
}

function filled(value: unknown, serial: () => number): unknown {
  if (typeof value === 'string')
    return value.includes('{') ? value.replaceAll('{n}', () => String(serial())).replaceAll('{uuid}', () => randomUUID()) : value
  if (Array.isArray(value)) return value.map((v) => filled(v, serial))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v, serial)]))
  return value
}

export function buildShape(spec: ShapeSpec, format: BatchFormat): BuiltShape {
  const varies = JSON.stringify(spec.body ?? {}).match(/\{(n|uuid)\}/) !== null
  let serial = 0
  const operationsOf = (): OperationSpec[] => {
    if (spec.kind === 'create') {
      const creates: OperationSpec[] = []
      const posts: OperationSpec[] = []
      for (let i = 1; i <= spec.documents!; i++) {
        creates.push({
          id: `c${i}`,
          method: 'POST',
          url: spec.set!,
          body: varies ? filled(spec.body, () => ++serial) : spec.body,
          atomicityGroup: 'g',
        })
        if (spec.post) posts.push({ id: `p${i}`, method: 'POST', url: `$c${i}/Post`, atomicityGroup: 'g' })
      }
      return [...creates, ...posts]
    }
    return Array.from({ length: spec.operations! }, (_, i) => ({
      id: `q${i + 1}`,
      method: 'GET',
      url: spec.urls![i % spec.urls!.length]!,
      headers: { accept: 'application/json' },
    }))
  }
  const fixed = varies ? undefined : buildBatchBody(operationsOf(), format)
  const tableRows = Object.values(spec.body ?? {}).reduce<number>((sum, v) => sum + (Array.isArray(v) ? v.length : 0), 0)
  return {
    spec,
    operations: spec.kind === 'create' ? spec.documents! * (spec.post ? 2 : 1) : spec.operations!,
    rowsWritten: spec.kind === 'create' ? spec.documents! * Math.max(1, tableRows) : 0,
    next: () => fixed ?? buildBatchBody(operationsOf(), format),
  }
}

/** What one 200 answer says: failed operations by status and code, rows written (creates) or read. */
export function answerFigures(shape: BuiltShape, contentType: string, body: Buffer): AnswerFigures {
  const answers = readBatchAnswer(contentType, body)
  const errors: Record<string, number> = {}
  let rows = 0
  let failed = false
  for (const answer of answers) {
    // 424 is the other operations of a failed JSON change set: the failure is counted once, at its
    // operation, as multipart answers it (one part for the whole set).
    if (answer.status === 424) failed = true
    else if (answer.status >= 400) {
      failed = true
      const key = `${answer.status} ${memberOf(memberOf(answer.body, 'error'), 'code') ?? ''}`.trim()
      errors[key] = (errors[key] ?? 0) + 1
    } else if (shape.spec.kind !== 'create') {
      const value = memberOf(answer.body, 'value')
      if (Array.isArray(value)) rows += value.length
    }
  }
  if (shape.spec.kind === 'create' && !failed) rows = shape.rowsWritten
  // A failed change set answers one part for all its operations (multipart): the rest count as failed too.
  const operations = shape.spec.kind === 'create' && failed ? shape.operations : answers.length
  return { operations, rows, errors }
}
