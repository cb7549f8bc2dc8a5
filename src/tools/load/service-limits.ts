// The service's batch limits, read rather than guessed (decisions.md §7, §8): `$settings` when the
// subject may read it, then the figures the service states when it refuses a batch —
// `400 TooManyOperations` ("… at most 100 are allowed", the profile's limit included) and `413`.
import { GaveUpError } from './batch-sender.js'
import type { ServiceClient } from '../shared/service-client.js'

export interface BatchLimits {
  maxOperations: number
  maxBytes: number
  /** Where the figures come from: `$settings`, `default`, or an error answer. */
  source: string
}

const DEFAULT_OPERATIONS = 100
const DEFAULT_MEGABYTES = 10

export async function readBatchLimits(client: Pick<ServiceClient, 'request'>): Promise<BatchLimits> {
  try {
    const answer = await client.request('GET', '$settings')
    if (answer.status === 200) {
      const settings = (answer.json() as { settings?: { maxBatchOperations?: unknown; maxBatchSizeMB?: unknown } }).settings ?? {}
      const operations = Number(settings.maxBatchOperations)
      const megabytes = Number(settings.maxBatchSizeMB)
      return {
        maxOperations: operations > 0 ? operations : DEFAULT_OPERATIONS,
        maxBytes: (megabytes > 0 ? megabytes : DEFAULT_MEGABYTES) * 1024 * 1024,
        source: '$settings',
      }
    }
  } catch (error) {
    if (error instanceof GaveUpError) throw error
    // an endpoint without $settings: the defaults, corrected by the first refusal
  }
  return { maxOperations: DEFAULT_OPERATIONS, maxBytes: DEFAULT_MEGABYTES * 1024 * 1024, source: 'default' }
}

/** The allowed figure in a TooManyOperations message, or undefined. */
export function allowedOperations(message: string): number | undefined {
  const match = /at most (\d+)/i.exec(message)
  return match ? Number(match[1]) : undefined
}
