// A row the loader refuses before sending it (it cannot be read, mapped or named): its code and message go
// to the reject file with status 0, and the load goes on.
export class RowError extends Error {
  /** The table part row (from 0) the error is in, when it is in one. */
  tablePartRow: number | undefined

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
