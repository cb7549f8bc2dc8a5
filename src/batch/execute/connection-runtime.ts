// A batch runs its operations in order on one connection (DESIGN.md: "Execution is sequential on one
// connection; a change set is one transaction"). Handlers reach the database through
// `ServiceContext.pool`; for a batch, that pool is a facade over the batch's own connection, so the
// same handlers serve single requests and batch operations, and every operation of a change set sees
// the transaction of the ones before it.
import type { PoolConnection } from 'mysql2/promise'
import { handleRequest } from '../../service/handle-request.js'
import type { ServiceContext } from '../../service/service-context.js'
import type { Pool } from '../../store/pool.js'
import type { BatchRuntime } from './execute-batch.js'

/** A Pool that hands out one connection, never released or destroyed by the operations themselves. */
function singleConnectionPool(connection: PoolConnection): Pool {
  const borrowed = new Proxy(connection, {
    get(target, property, receiver) {
      // An operation "releasing" or "destroying" its connection must not end the batch's connection.
      if (property === 'release' || property === 'destroy') return () => undefined
      return Reflect.get(target, property, receiver)
    },
  })
  const facade = {
    execute: connection.execute.bind(connection),
    query: connection.query.bind(connection),
    getConnection: () => Promise.resolve(borrowed),
  }
  return facade as unknown as Pool
}

export interface ConnectionRuntime extends BatchRuntime {
  release(): void
}

export async function createConnectionRuntime(context: ServiceContext): Promise<ConnectionRuntime> {
  const connection = await context.pool.getConnection()
  const batchContext: ServiceContext = { ...context, pool: singleConnectionPool(connection) }
  const run = (request: Parameters<BatchRuntime['run']>[0], sink: Parameters<BatchRuntime['run']>[1]) => handleRequest(batchContext, request, sink)
  return {
    run,
    async transaction(body) {
      await connection.beginTransaction()
      let commit = false
      try {
        commit = await body(run)
      } finally {
        if (commit) await connection.commit()
        else await connection.rollback()
      }
    },
    release: () => connection.release(),
  }
}
