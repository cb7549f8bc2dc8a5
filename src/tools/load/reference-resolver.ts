// References by Code: a row may name a catalog item by its `Code` (`"Warehouse": "000000001"`) where
// the service wants its key (`Warehouse_Key`). The codes of a catalog are read from the service once
// (`$select=Ref_Key,Code`, every page), and read again once more when a code is missing (an item
// loaded since, by an earlier file of the same load).
import type { ServiceClient } from '../shared/service-client.js'

export class ReferenceResolver {
  private readonly catalogs = new Map<string, Map<string, string>>()
  private readonly refreshed = new Set<string>()
  private readonly loading = new Map<string, Promise<Map<string, string>>>()

  constructor(private readonly client: ServiceClient) {}

  /** The key of the item of `set` with this code, or undefined when the service has none. */
  async keyOf(set: string, code: string): Promise<string | undefined> {
    let codes = this.catalogs.get(set) ?? (await this.load(set))
    let key = codes.get(code)
    if (key === undefined && !this.refreshed.has(set)) {
      this.refreshed.add(set)
      this.catalogs.delete(set)
      codes = await this.load(set)
      key = codes.get(code)
    }
    return key
  }

  /** Forgets what was read, so that the next file sees the items loaded before it. */
  forget(): void {
    this.catalogs.clear()
    this.refreshed.clear()
  }

  private load(set: string): Promise<Map<string, string>> {
    let loading = this.loading.get(set)
    if (!loading) {
      loading = this.readCodes(set).finally(() => this.loading.delete(set))
      this.loading.set(set, loading)
    }
    return loading
  }

  private async readCodes(set: string): Promise<Map<string, string>> {
    const codes = new Map<string, string>()
    let next: string | undefined = `${encodeURIComponent(set)}?$select=Ref_Key,Code`
    while (next) {
      const answer = await this.client.request('GET', next)
      if (answer.status !== 200) throw new Error(`reading the codes of ${set} answered ${answer.status}: ${answer.text().slice(0, 200)}`)
      const page = answer.json() as { value: { Ref_Key: string; Code: string }[]; '@odata.nextLink'?: string }
      for (const item of page.value) codes.set(String(item.Code), item.Ref_Key)
      const link = page['@odata.nextLink']
      next = link ? this.relative(link) : undefined
    }
    this.catalogs.set(set, codes)
    return codes
  }

  private relative(link: string): string {
    const url = new URL(link, this.client.root)
    const root = this.client.root.pathname
    return url.pathname.startsWith(root) ? `${url.pathname.slice(root.length)}${url.search}` : `${url.pathname}${url.search}`
  }
}
