// A proxy between the service and the database server that cuts one connection at its COMMIT, to show what
// the service does when the answer to a COMMIT never comes back (a node going away, a network cut): the
// server may have committed or not, and the client cannot tell. The statement-cutting proxy
// (statement-cutting-proxy.ts) with one rule:
//   - `before`: the COMMIT is not passed on; the server rolls the transaction back.
//   - `after`: the COMMIT is passed on and its answer swallowed: the transaction is committed, and the
//     client never hears it.
// Only a COMMIT of a transaction that wrote to `request_log`: the commit of a change set that carries its
// batch's log entries.
import { startStatementCuttingProxy } from './statement-cutting-proxy.js'

export type CommitCut = 'before' | 'after'

export interface CommitCuttingProxy {
  readonly port: number
  /** Cuts the next such COMMIT; resolves once it has been cut. */
  cutNextLoggedCommit(cut: CommitCut): Promise<void>
  close(): Promise<void>
}

const LOG_INSERT = 'INSERT INTO `request_log`'

export async function startCommitCuttingProxy(target: { host: string; port: number }): Promise<CommitCuttingProxy> {
  const proxy = await startStatementCuttingProxy(target)
  return {
    port: proxy.port,
    cutNextLoggedCommit: async (cut) => {
      await proxy.killAt({
        at: ({ text, transaction }) => text.toUpperCase() === 'COMMIT' && transaction.some((statement) => statement.startsWith(LOG_INSERT)),
        cut,
      })
    },
    close: () => proxy.close(),
  }
}
