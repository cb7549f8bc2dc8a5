// What a wire case compares of a `$batch` answer (service.md §4.4): the statuses in order, a change set
// (multipart) or an atomicity group (JSON) as a nested list; the error code of each JSON response by id;
// the Content-IDs a multipart answer echoes.
import type { TestResponse } from './test-service.js'

export interface BatchAnswer {
  readonly parts: (number | number[])[]
  readonly codes: Record<string, string | undefined>
  readonly contentIds: string[]
}

const statusOf = (part: string) => Number(/HTTP\/1\.1 (\d{3})/.exec(part)?.[1])

export function readBatchAnswer(response: TestResponse): BatchAnswer {
  const contentType = String(response.headers['content-type'])
  if (/^multipart\//.test(contentType)) {
    // Top-level parts: an application/http part's status, or a nested change set's list of statuses.
    const boundary = /boundary=([^;\s]+)/.exec(contentType)?.[1]
    if (boundary === undefined) throw new Error(`no boundary in ${contentType}`)
    const parts = response.text
      .split(`--${boundary}`)
      .slice(1, -1)
      .map((part) => {
        const nested = /boundary=(changesetresponse_[^\s;]+)/.exec(part)
        if (!nested) return statusOf(part)
        return part.split(`--${nested[1]}`).slice(1, -1).map(statusOf)
      })
    return { parts, codes: {}, contentIds: [...response.text.matchAll(/Content-ID: ([^\r\n]+)/g)].map((m) => m[1]!) }
  }
  const items = response.json().responses as { id: string; atomicityGroup?: string; status: number; body?: { error?: { code: string } } }[]
  const parts: (number | number[])[] = []
  let group: string | undefined
  for (const item of items) {
    if (item.atomicityGroup !== undefined && item.atomicityGroup === group) (parts[parts.length - 1] as number[]).push(item.status)
    else parts.push(item.atomicityGroup !== undefined ? [item.status] : item.status)
    group = item.atomicityGroup
  }
  return { parts, codes: Object.fromEntries(items.map((item) => [item.id, item.body?.error?.code])), contentIds: [] }
}
