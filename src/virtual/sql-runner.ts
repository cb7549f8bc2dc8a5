// How an implementation runs a small query of its own while it builds a call's SQL (the first and last
// month of the totals, the accounts an AccountCondition selects): the caller hands one in, so that
// src/virtual reads the store without knowing the service's query pipeline. Rows are arrays in the order
// of the SELECT list.
import type { Statement } from '../statement.js'

export type SqlRunner = (query: Statement) => Promise<readonly (readonly unknown[])[]>
