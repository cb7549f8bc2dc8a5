// A Buffer view of pushed bytes, without copying: the intakes read chunks through Buffer methods
// (copy, toString, indexOf) but callers may pass any Uint8Array, such as a view of a uWS ArrayBuffer.

export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
}
