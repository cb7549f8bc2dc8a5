// The order of the pipeline's stages: a file may import its own stage and any stage in a row below its
// own, never one above and never a neighbour in the same row. A stage is a folder under src/ (or a file
// at src/ itself: cli.ts, errors.ts). `node scripts/check-pipeline-order.mjs` checks every import of
// src/ against this table (`make test` runs it first); a folder not in the table fails the check.
//
// Read top to bottom as a request travels down and the code it needs lies below:
export const stages = [
  ['cli'], //                 commands: serve, migrate, seed, recompute-totals
  ['ops'], //                 the process: environment, worker processes, graceful stop
  ['pipelining'], //          HTTP_PIPELINING=serialize: the HTTP/1.1 framing front a request meets first; it
  //                          starts uWS behind itself and hands it one request of a connection at a time
  ['http', 'tools'], //       uWS, mounts, authentication, the early refusals of $batch (decisions.md §7);
  //                          the loader and load driver, clients of the service over HTTP (they import none of it)
  ['batch'], //               intake, plan, rate rules, execute, answer and log of a $batch
  ['service', 'seed'], //     the dispatcher and its handlers, writes, reads; the demo data
  ['virtual', 'posting'], //  virtual-table sources; the generic poster
  ['respond', 'limits', 'log'], // response writers and row streaming; rate rules; request and process log
  ['metrics'], //             the Prometheus registry every stage above counts into
  ['store'], //               the pool, schema, transactions, totals
  ['sql'], //                 the compiler and the hand-written SQL builder
  ['odata'], //               URL, query options, expression language and binder: the tree sql compiles
  ['model'], //               the configuration and the model derived from it
  ['errors'], //              the error registry, shared by all
  ['database-failures'], //   what the driver's error codes mean (unreachable, lock wait, write conflict): pure facts
  ['statement'], //           the one shape of a statement (text and placeholder values): compiler, builder and port share it
]

// Packages only some stages may import (a package or any of its entry points, `mysql2/promise`): the
// database driver stays behind the one database port of src/store (src/store/database.ts), so no other
// stage depends on how statements reach the server. perf/ and test/ are not checked: baselines and
// fixtures talk to the server directly.
export const packages = { mysql2: ['store'] }

// Imports that break the order today, in code that is being reworked elsewhere; each says why and what
// ends it. `from` and `to` are path prefixes under the repository root. An exception that no longer
// matches any import is reported, so it can be removed.
export const exceptions = []
