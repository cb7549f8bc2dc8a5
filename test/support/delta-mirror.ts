// A client of change tracking, as an ETL pipeline would be: reads a set once with
// `Prefer: odata.track-changes` (every page), keeps the rows by key, and applies each delta in order —
// changed rows replace their copy, `@removed` entries remove it. The tests compare the copy with the
// set read again from scratch.
import type { TestResponse } from './test-service.js'

export type Entity = Record<string, unknown>
export type Fetch = (link: string, headers?: Record<string, string>) => Promise<TestResponse>

export class DeltaMirror {
  readonly rows = new Map<string, Entity>()
  deltaLink = ''
  /** Changed and removed entries seen per delta, for the tests that count them. */
  readonly deltas: { changed: Entity[]; removed: Entity[] }[] = []

  constructor(
    private readonly keyNames: readonly string[],
    private readonly fetch: Fetch,
  ) {}

  keyOf(entity: Entity): string {
    return JSON.stringify(this.keyNames.map((name) => entity[name]))
  }

  /** The set read again from scratch (every page), keyed like the copy. */
  async readAgain(path: string): Promise<Map<string, Entity>> {
    const rows = new Map<string, Entity>()
    let response = await this.fetch(path)
    for (;;) {
      const body = response.json()
      for (const entity of body.value as Entity[]) rows.set(this.keyOf(entity), plain(entity))
      if (!body['@odata.nextLink']) return rows
      response = await this.fetch(body['@odata.nextLink'])
    }
  }

  /** The first read: every page, then the delta link of its last page. */
  async start(path: string, headers: Record<string, string> = {}): Promise<void> {
    let response = await this.fetch(path, { Prefer: 'odata.track-changes', ...headers })
    for (;;) {
      if (response.status !== 200) throw new Error(`first read: ${response.status} ${response.text}`)
      const body = response.json()
      for (const entity of body.value as Entity[]) this.rows.set(this.keyOf(entity), plain(entity))
      if (body['@odata.nextLink']) {
        response = await this.fetch(body['@odata.nextLink'], { Prefer: 'odata.track-changes', ...headers })
        continue
      }
      if (typeof body['@odata.deltaLink'] !== 'string') throw new Error(`the last page has no delta link: ${response.text}`)
      this.deltaLink = body['@odata.deltaLink']
      return
    }
  }

  /** Follows the delta link through every page of the delta, applying each entry. */
  async catchUp(headers: Record<string, string> = {}): Promise<void> {
    const delta = { changed: [] as Entity[], removed: [] as Entity[] }
    let response = await this.fetch(this.deltaLink, headers)
    for (;;) {
      if (response.status !== 200) throw new Error(`delta: ${response.status} ${response.text}`)
      const body = response.json()
      for (const entry of body.value as Entity[]) {
        if (entry['@removed']) {
          delta.removed.push(entry)
          this.rows.delete(this.keyOf(entry))
        } else {
          delta.changed.push(entry)
          this.rows.set(this.keyOf(entry), plain(entry))
        }
      }
      if (body['@odata.nextLink']) {
        response = await this.fetch(body['@odata.nextLink'], headers)
        continue
      }
      this.deltaLink = body['@odata.deltaLink']
      this.deltas.push(delta)
      return
    }
  }
}

/** The entity without its annotations (`@id`, `@odata.etag`). */
export function plain(entity: Entity): Entity {
  return Object.fromEntries(Object.entries(entity).filter(([name]) => !name.startsWith('@')))
}
