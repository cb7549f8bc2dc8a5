// Accounts of a chart are predefined by the configuration, so their Ref_Key is derived from the chart
// and the code: every installation, the seed generator and the poster agree without a lookup.
import { createHash } from 'node:crypto'

export function accountRefKey(chart: string, code: string): string {
  const hex = createHash('sha1').update(`ChartOfAccounts:${chart}:${code}`).digest('hex')
  // Shaped as a name-based (version 5) UUID.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
