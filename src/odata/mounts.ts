// Which service root a request path is under (decisions.md §1):
//   reference flavour  <reference>/v4/…            (HTTP Basic; $batch is 501)
//   token flavour      <token>/v4/…  and  <token>/t/<token>/v4/…
// The rest of the path, after `/v4/`, goes to the resource-path resolver.
import type { Flavour } from '../model/flavour.js'

export interface MountMatch {
  readonly flavour: Flavour
  /** The service root as clients see it, without any token: `/api/v4/`. */
  readonly root: string
  /** The token written in the path (`/api/t/<token>/v4/`), if any. */
  readonly pathToken: string | undefined
  /** The still-encoded path after the root (`Catalog_Products(…)`), '' for the root itself. */
  readonly rest: string
}

export function matchMount(path: string, mounts: { readonly reference: string; readonly token: string }): MountMatch | undefined {
  const reference = `${mounts.reference}/v4`
  if (path === reference || path.startsWith(`${reference}/`)) {
    return { flavour: 'reference', root: `${reference}/`, pathToken: undefined, rest: path.slice(reference.length + 1) }
  }
  const token = `${mounts.token}/v4`
  if (path === token || path.startsWith(`${token}/`)) {
    return { flavour: 'token', root: `${token}/`, pathToken: undefined, rest: path.slice(token.length + 1) }
  }
  const tokenPathPrefix = `${mounts.token}/t/`
  if (path.startsWith(tokenPathPrefix)) {
    const end = path.indexOf('/', tokenPathPrefix.length)
    if (end < 0) return undefined
    const afterToken = path.slice(end)
    if (afterToken !== '/v4' && !afterToken.startsWith('/v4/')) return undefined
    let pathToken: string
    try {
      pathToken = decodeURIComponent(path.slice(tokenPathPrefix.length, end))
    } catch {
      return undefined
    }
    return { flavour: 'token', root: `${token}/`, pathToken, rest: afterToken.slice(4) }
  }
  return undefined
}
