// The reject file: one JSON line per refused row, with the row as read, the status, and the error's code
// and message, so that the rows can be corrected and loaded again from this file alone.
import { closeSync, openSync, writeSync } from 'node:fs'

export interface Rejection {
  readonly source: string
  readonly row: number
  /** The line of the input the row begins on, when known. */
  readonly line?: number
  readonly record: unknown
  readonly status: number
  readonly code: string
  readonly message: string
}

export class RejectFile {
  private fd: number | undefined
  count = 0

  constructor(readonly path: string) {}

  write(rejection: Rejection): void {
    this.fd ??= openSync(this.path, 'a')
    writeSync(this.fd, `${JSON.stringify(rejection)}\n`)
    this.count++
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
  }
}
