// What a wire case compares of a `$batch` answer (service.md §4.4): the statuses in order, a change set
// (multipart) or an atomicity group (JSON) as a nested list; the error code of each JSON response by id;
// the Content-IDs a multipart answer echoes. Read with the tools' reader of batch answers.
import { memberOf, readBatchAnswer } from '../../src/tools/shared/batch-answer.js'
import type { TestResponse } from './test-service.js'

export interface BatchAnswer {
  readonly parts: (number | number[])[]
  readonly codes: Record<string, string | undefined>
  readonly contentIds: string[]
}

export function batchAnswerOf(response: TestResponse): BatchAnswer {
  const contentType = String(response.headers['content-type'])
  const answers = readBatchAnswer(contentType, response.body)
  const parts: (number | number[])[] = []
  let group: string | undefined
  for (const answer of answers) {
    if (answer.group !== undefined && answer.group === group) (parts[parts.length - 1] as number[]).push(answer.status)
    else parts.push(answer.group !== undefined ? [answer.status] : answer.status)
    group = answer.group
  }
  if (/^multipart\//.test(contentType))
    return { parts, codes: {}, contentIds: answers.flatMap((answer) => (answer.id === undefined ? [] : [answer.id])) }
  const codes = Object.fromEntries(
    answers.map((answer) => [answer.id, memberOf(memberOf(answer.body, 'error'), 'code') as string | undefined]),
  )
  return { parts, codes, contentIds: [] }
}
