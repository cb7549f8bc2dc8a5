// How many rows a page holds: the client's `Prefer: odata.maxpagesize=n` (4.01 also `maxpagesize=n`)
// and the service's `pageSize` setting (0: no paging unless the client asks). The smaller wins; a
// client's preference is echoed in Preference-Applied with the size used. A malformed preference is
// ignored, as RFC 7240 asks of preferences a server does not understand.
import type { ServiceRequest } from '../service-request.js'

export interface PageSize {
  /** Rows per page, or undefined when the read is not paged. */
  readonly size: number | undefined
  /** The Preference-Applied value, when the client's preference decided. */
  readonly applied: string | undefined
}

const PREFERENCE = /(?:^|[,;]\s*)(odata\.maxpagesize|maxpagesize)\s*=\s*"?(\d{1,9})"?\s*(?=$|[,;])/i

export function pageSize(request: ServiceRequest, setting: number): PageSize {
  const prefer = request.headers.get('prefer')
  const match = prefer === undefined ? null : PREFERENCE.exec(prefer)
  const requested = match ? Number(match[2]) : undefined
  const server = setting > 0 ? setting : undefined
  if (requested === undefined || requested === 0) return { size: server, applied: undefined }
  // The client's figure is a maximum: a smaller server page honours it too.
  const size = server !== undefined && server < requested ? server : requested
  return { size, applied: `${match![1]}=${size}` }
}
