// The buffer the export reads its pages into: every chunk of a body lands in order, the buffer grows for
// a large body and is reused for the next, and a body that fails half-way rejects.

import { Readable } from 'node:stream'
import t from 'tap'
import { ReusableBody } from '../../../src/tools/shared/reusable-body.js'

/** A body of `count` chunks of `size` bytes, each chunk's bytes counting on from the last one's. */
function chunks(count: number, size: number): Buffer[] {
  let next = 0
  return Array.from({ length: count }, () => Buffer.from(Array.from({ length: size }, () => next++ % 251)))
}

t.test('a body larger than the buffer arrives whole and in order, and a smaller one reuses the buffer', async (t) => {
  const body = new ReusableBody()
  const large = chunks(40, 64 * 1024)
  const first = await body.fill(Readable.from(large, { objectMode: false }))
  t.equal(first.length, 40 * 64 * 1024)
  t.ok(first.equals(Buffer.concat(large)), 'the bytes of every chunk, in order')
  const small = [Buffer.from('{"value":['), Buffer.from('{"a":"é"}'), Buffer.from(']}')]
  const second = await body.fill(Readable.from(small, { objectMode: false }))
  t.equal(second.toString('utf8'), '{"value":[{"a":"é"}]}')
  t.equal(second.buffer, first.buffer, 'the same memory as the page before')
})

t.test('an empty body is an empty buffer', async (t) => {
  const read = await new ReusableBody().fill(Readable.from([], { objectMode: false }))
  t.equal(read.length, 0)
})

t.test('a body that fails half-way rejects with its error', async (t) => {
  const failing = new Readable({
    read() {
      this.push(Buffer.from('{"value":['))
      this.destroy(new Error('connection reset'))
    },
  })
  await t.rejects(new ReusableBody().fill(failing), /connection reset/)
})
