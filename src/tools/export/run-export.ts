// The export loop: pages of the resource (keyset-paged next links, `Prefer: odata.maxpagesize`) written to
// the output one at a time by the writer of its format (page-writer.ts), so memory holds two pages
// whatever the size (the next one is asked for while this one is written); at most once a second, and at
// the end, the output is synced to disk and then the checkpoint records the next link and the output's
// length (export-checkpoint.ts). A Parquet file is checkpointed only when whole (it cannot be continued).
//
// `--changes`: the first run reads the set with `Prefer: odata.track-changes` and keeps the delta link of
// its last page; each later run follows the kept link and writes only what changed since (removed rows as
// their key with `_removed`), then keeps the new link. `--follow` does that again every interval, appending.
import { rmSync } from 'node:fs'
import { ReusableBody } from '../shared/reusable-body.js'
import { errorOf, type ServiceAnswer, type ServiceClient } from '../shared/service-client.js'
import { readExportState, writeExportState, type ExportState } from './export-checkpoint.js'
import type { ExportTarget } from './export-plan.js'
import { createExportProgress } from './export-progress.js'
import { createPageWriter } from './page-writer.js'

export interface ExportOptions {
  readonly client: ServiceClient
  readonly target: ExportTarget
  readonly checkpointPath: string
  readonly changes: boolean
  readonly follow: boolean
  readonly intervalSeconds: number
  readonly pageSize: number
  readonly retryForSeconds: number
  readonly terminal: boolean
  /** Ends `--follow` (after the page in hand is written). */
  readonly stop?: AbortSignal
}

export interface ExportSummary {
  readonly rows: number
  readonly removed: number
  readonly pages: number
  /** Whether the run went on from an interrupted one. */
  readonly resumed: boolean
  readonly rowsPerSecond: number
}

/** Thrown when the service stays away past `--retry-for`; the checkpoint lets the same command go on. */
export class ExportGaveUp extends Error {}

/** How often the checkpoint moves on: each time costs a sync of the output. */
const CHECKPOINT_EVERY_MS = 1000

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** A link the service handed out, as a path under the client's root. */
function underRoot(client: ServiceClient, link: string): string {
  const url = new URL(link, client.root)
  if (!url.pathname.startsWith(client.root.pathname)) throw new Error(`the service handed out a link outside its root: ${link}`)
  return `${url.pathname.slice(client.root.pathname.length)}${url.search}`
}

function firstPath(target: ExportTarget): string {
  const options: string[] = []
  if (target.filter !== undefined) options.push(`$filter=${encodeURIComponent(target.filter)}`)
  if (target.select !== undefined) options.push(`$select=${encodeURIComponent(target.select)}`)
  return `${encodeURI(target.resource)}${options.length > 0 ? `?${options.join('&')}` : ''}`
}

/** GET with retries while the service is away, busy or throttling, up to `retryForSeconds` without an answer. */
async function getPage(
  client: ServiceClient,
  path: string,
  headers: Record<string, string>,
  retryForSeconds: number,
  into: ReusableBody,
): Promise<ServiceAnswer> {
  const started = Date.now()
  for (let attempt = 1; ; attempt++) {
    let reason: string
    try {
      const answer = await client.request('GET', path, { headers, into })
      if (answer.status !== 503 && answer.status !== 429) return answer
      reason = `the service answered ${answer.status}`
    } catch (error) {
      reason = `the service cannot be reached (${(error as Error).message})`
    }
    if (Date.now() - started > retryForSeconds * 1000)
      throw new ExportGaveUp(
        `${reason}; gave up after ${retryForSeconds} s (the checkpoint keeps the last page written: run the same command again)`,
      )
    await sleep(Math.min(250 * 2 ** Math.min(attempt - 1, 5), 8000))
  }
}

export async function runExport(options: ExportOptions): Promise<ExportSummary> {
  const { client, target } = options
  const identity = JSON.stringify([
    target.resource,
    target.filter ?? null,
    target.select ?? null,
    target.format,
    target.path,
    options.changes,
  ])
  let state: ExportState | undefined = readExportState(options.checkpointPath, identity)
  // A Parquet file cannot be continued (its index is its end), nor can stdout be cut back to a checkpoint
  // (what went down the pipe past it is gone, and a new reader would miss what came before it): a stopped
  // run is written again from its start (with --changes, from the delta link kept before it).
  if ((target.format === 'parquet' || target.path === '-') && state?.next !== undefined)
    state = { target: identity, bytes: 0, rows: 0, ...(state.deltaLink ? { deltaLink: state.deltaLink } : {}) }
  const resumed = state?.next !== undefined
  // A file is written afresh by each run, unless the run resumes one or follows changes (a continuous feed).
  const keep = resumed || (options.follow && state !== undefined) ? (state?.bytes ?? 0) : undefined
  const output = await createPageWriter({ client, target, changes: options.changes, keepBytes: keep })
  const progress = createExportProgress({ terminal: options.terminal, label: target.resource })
  const started = Date.now()
  let rows = state?.next !== undefined ? state.rows : 0
  let removed = 0
  let pages = 0
  let total: number | undefined
  // Two bodies, taken in turn: a page is read into one while the page before it, in the other, is written.
  const bodies = [new ReusableBody(), new ReusableBody()]
  let turn = 0
  const nextBody = () => bodies[turn++ % 2]!
  if (!options.changes && !resumed) {
    // The count is for the progress bar only: asked beside the first page, not before it (counting a million
    // rows takes the server a good part of a second, which the export would otherwise wait out idle).
    const countPath = `${firstPath({ ...target, select: undefined }).replace(/(\?|$)/, '/$count$1')}`
    client.request('GET', countPath).then(
      (counted) => {
        if (counted.status === 200) total = Number(counted.text())
      },
      () => undefined,
    )
  }
  try {
    for (;;) {
      const link = state?.next ?? (options.changes ? state?.deltaLink : undefined)
      const tracked = options.changes && link === undefined
      let path = link === undefined ? firstPath(target) : underRoot(client, link)
      const headers: Record<string, string> = {
        prefer: tracked ? `odata.track-changes,odata.maxpagesize=${options.pageSize}` : `odata.maxpagesize=${options.pageSize}`,
      }
      let pending = getPage(client, path, headers, options.retryForSeconds, nextBody())
      // The first page is checkpointed at once, later ones once a second.
      let checkpointed = 0
      for (;;) {
        const answer = await pending
        if (answer.status !== 200) {
          const error = errorOf(answer)
          if (answer.status === 410)
            throw new Error(
              `${error.message} (${error.code}); remove ${options.checkpointPath} to export the whole set again and start following from there`,
            )
          throw new Error(`GET ${path} answered ${answer.status} ${error.code}: ${error.message}`)
        }
        if (tracked && !String(answer.headers['preference-applied'] ?? '').includes('track-changes'))
          throw new Error(
            `${target.resource} does not track changes with these options (catalogs, documents, registers; $filter and $select only)`,
          )
        const page = output.read(answer)
        const asked = page.members['@odata.nextLink'] as string | undefined
        if (asked !== undefined) {
          // The next page is on its way while this one is written.
          path = underRoot(client, asked)
          pending = getPage(client, path, headers, options.retryForSeconds, nextBody())
          pending.catch(() => undefined)
        }
        removed += await page.write()
        // Written, the page's links are sure; when the link read from its end before was not the right one
        // (a row's text that looked like the page's end), that answer is let go and the right page asked for.
        const next = page.members['@odata.nextLink'] as string | undefined
        if (next !== asked) {
          if (asked !== undefined) await pending.catch(() => undefined)
          if (next !== undefined) {
            path = underRoot(client, next)
            pending = getPage(client, path, headers, options.retryForSeconds, nextBody())
            pending.catch(() => undefined)
          }
        }
        rows += page.rows
        pages++
        progress.update(rows, total)
        if (next !== undefined && (!output.resumable || Date.now() - checkpointed < CHECKPOINT_EVERY_MS)) continue
        checkpointed = Date.now()
        await (next === undefined ? output.finish() : output.sync())
        const deltaLink = next === undefined ? (page.members['@odata.deltaLink'] as string | undefined) : state?.deltaLink
        state = {
          target: identity,
          bytes: output.bytes,
          rows,
          ...(next === undefined ? {} : { next }),
          ...(deltaLink === undefined ? {} : { deltaLink }),
        }
        writeExportState(options.checkpointPath, state)
        if (next === undefined) break
      }
      if (!options.follow || options.stop?.aborted) break
      await sleep(options.intervalSeconds * 1000, options.stop)
      if (options.stop?.aborted) break
    }
  } finally {
    progress.stop()
    await output.close()
  }
  // A whole export done leaves nothing to resume; an export of changes keeps its delta link.
  if (!options.changes) rmSync(options.checkpointPath, { force: true })
  return { rows, removed, pages, resumed, rowsPerSecond: Math.round(rows / Math.max((Date.now() - started) / 1000, 0.001)) }
}
