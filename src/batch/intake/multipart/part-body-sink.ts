// Where the bytes of one multipart part go while they stream in.

export interface PartBodySink {
  /** The next bytes of the part; `data` is valid only during the call. */
  write(data: Buffer, start: number, end: number): void
  /** The part ended (the next delimiter was found). */
  end(): void
}
