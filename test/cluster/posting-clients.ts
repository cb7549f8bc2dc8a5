// Clients of the cluster tests: each sends its change sets of posted documents, one after the other, to
// one service process, and does what a client is told: a 503 is sent again after its Retry-After (the
// same change set, whose creates carry client-given keys and If-None-Match: *), a 412 on the first create
// says an earlier attempt was applied. Every answer is kept, for the tests to judge.
import {
  postingBatch,
  readOutcome,
  sendBatch,
  sleep,
  documentKey,
  type BatchOutcome,
  type CatalogKeys,
  type PlannedDocument,
} from './cluster-support.js'

export interface PlannedBatch {
  readonly client: number
  readonly index: number
  readonly documents: readonly PlannedDocument[]
  /** Every answer this batch got, in order (several when it was sent again). */
  readonly answers: BatchOutcome[]
}

export interface ClientPlan {
  readonly clients: number
  readonly batchesPerClient: number
  readonly documentsPerBatch: number
  readonly rowsPerDocument: number
  /** The index of each client's first batch (0 by default): later rounds into one database take new document keys. */
  readonly firstIndex?: number
}

export function planBatches(plan: ClientPlan): PlannedBatch[][] {
  const first = plan.firstIndex ?? 0
  return Array.from({ length: plan.clients }, (_, client) =>
    Array.from({ length: plan.batchesPerClient }, (_, i) => {
      const index = first + i
      return {
        client,
        index,
        documents: Array.from({ length: plan.documentsPerBatch }, (_, d) => ({
          key: documentKey(client, index, d),
          // Receipts and sales into the same warehouse and product: every set moves the same totals rows.
          kind: (client + index + d) % 3 === 2 ? ('GoodsSale' as const) : ('GoodsReceipt' as const),
          quantity: 1 + ((client * 7 + index * 3 + d) % 5),
          rows: plan.rowsPerDocument,
        })),
        answers: [],
      }
    }),
  )
}

/** A batch is applied when an answer said it committed, or a later attempt found it present. */
export const applied = (batch: PlannedBatch) => batch.answers.some((answer) => answer.kind === 'committed' || answer.kind === 'present')

/**
 * Runs every client's batches against the port `portOf(client)` returns (read at each send, so a test
 * may move clients); stops a batch after `maxAttempts` answers. `onSent` runs after each answer.
 */
export async function runClients(
  keys: CatalogKeys,
  clients: PlannedBatch[][],
  portOf: (client: number) => number,
  options: { maxAttempts?: number; onSent?: () => void } = {},
): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 40
  await Promise.all(
    clients.map(async (batches, client) => {
      for (const batch of batches) {
        const body = postingBatch(keys, batch.documents)
        for (let attempt = 1; attempt <= maxAttempts; attempt++) {
          let answer: BatchOutcome
          try {
            answer = readOutcome(await sendBatch(portOf(client), body))
          } catch (error) {
            answer = { kind: 'failed', statuses: [], detail: `no answer: ${(error as Error).message}` }
          }
          batch.answers.push(answer)
          options.onSent?.()
          if (answer.kind !== 'retry') break
          // Retry-After is in seconds; the test waits at most half a second of it.
          await sleep(Math.min(500, 1000 * Number(answer.retryAfter || 1)))
        }
      }
    }),
  )
}

/** Sum of quantities the documents move (receipts in, sales out) and their table rows. */
export function expectedMovement(batches: readonly PlannedBatch[]): { net: number; rows: number; documents: number } {
  let net = 0
  let rows = 0
  let documents = 0
  for (const batch of batches) {
    for (const document of batch.documents) {
      net += (document.kind === 'GoodsReceipt' ? 1 : -1) * document.quantity * document.rows
      rows += document.rows
      documents++
    }
  }
  return { net, rows, documents }
}
