// The reject file: one JSON line per refused row, with the row as read, the status, and the error's code
// and message, so that the rows can be corrected and loaded again from this file alone.
import { closeSync, openSync, writeSync } from 'node:fs'
import { InputStop } from './input-source.js'

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

  /**
   * Writes the reject, or stops the load (a full disk): the row is then not marked done in the checkpoint,
   * so a rerun once there is room gives it its outcome again.
   */
  write(rejection: Rejection): void {
    try {
      this.fd ??= openSync(this.path, 'a')
      writeSync(this.fd, `${JSON.stringify(rejection)}\n`)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error)
      throw new InputStop(
        `the reject file ${this.path} cannot be written (${code}): row ${rejection.row} of ${rejection.source} and the rows after it have no outcome; make room and run the same command again`,
      )
    }
    this.count++
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
  }
}
