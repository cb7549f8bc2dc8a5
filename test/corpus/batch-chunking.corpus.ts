// Every request of the corpus (its INDEX.md): parsed whole, then cut at every byte into two chunks
// (every 97th byte for files over 2 KB), then at seeded random places into many chunks; the document
// must always be the one the whole body gives (docs/architecture.md: wire cases whole, byte by byte, at random
// split points).

import t from 'tap'
import { createJsonIntake } from '../../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../../src/batch/intake/multipart/multipart-intake.js'
import type { BatchIntake } from '../../src/batch/intake/batch-intake.js'
import { type TapTest, ingest, outcomeKey, randomSplit, splitAt } from '../batch/intake/intake-harness.js'
import { seededRandom } from '../../src/seed/random.js'
import {
  EXAMPLE_101,
  fragmentInBatch,
  EXAMPLE_101_REFUSAL,
  multipartRequestFiles,
  multipartSample,
  withHttpVersions,
} from './batch-samples.js'
import { corpusFile } from './corpus-folder.js'

const LIMITS = { maxOperations: 1000 }

const JSON_REQUEST_FILES = ['batch-spec/batch-json-request-1.json', 'batch-spec/batch-json-request-3.json']

function checkChunkings(t: TapTest, name: string, body: Buffer, createIntake: () => BatchIntake): void {
  const whole = ingest(createIntake(), [body])
  t.equal(whole.error, undefined, `${name}: parses whole`)
  const expected = outcomeKey(whole)

  const step = body.length <= 2048 ? 1 : 97
  let twoChunkMismatches = 0
  for (let cut = 0; cut <= body.length; cut += step) {
    if (outcomeKey(ingest(createIntake(), splitAt(body, [cut]))) !== expected) twoChunkMismatches++
  }
  t.equal(twoChunkMismatches, 0, `${name}: the same document when cut in two at every ${step === 1 ? 'byte' : '97th byte'}`)

  const random = seededRandom(0x5eed + body.length)
  let randomMismatches = 0
  for (let attempt = 0; attempt < 40; attempt++) {
    const chunks = randomSplit(body, random, 2 + Math.floor(random() * Math.min(64, body.length)))
    if (outcomeKey(ingest(createIntake(), chunks)) !== expected) randomMismatches++
  }
  t.equal(randomMismatches, 0, `${name}: the same document when cut at seeded random places`)

  const byteByByte =
    body.length <= 4096
      ? ingest(
          createIntake(),
          Array.from(body, (_, index) => body.subarray(index, index + 1)),
        )
      : undefined
  if (byteByByte !== undefined) t.equal(outcomeKey(byteByByte), expected, `${name}: the same document fed one byte at a time`)
}

t.test('multipart requests of the corpus', async (t) => {
  for (const file of multipartRequestFiles()) {
    const sample = multipartSample(file)
    const createIntake = () => createMultipartIntake({ boundary: sample.boundary, limits: LIMITS })
    if (file === EXAMPLE_101) {
      // Refused as it is (no HTTP version on its first request line), the same way however it is cut;
      // with the version added, everything else it shows is read.
      const whole = ingest(createIntake(), [sample.body])
      t.equal(whole.error?.message, EXAMPLE_101_REFUSAL, `${file}: refused whole`)
      let others = 0
      for (let cut = 0; cut <= sample.body.length; cut++)
        if (outcomeKey(ingest(createIntake(), splitAt(sample.body, [cut]))) !== outcomeKey(whole)) others++
      t.equal(others, 0, `${file}: the same refusal when cut in two at every byte`)
      checkChunkings(t, `${file} with its HTTP version`, withHttpVersions(sample).body, createIntake)
      continue
    }
    checkChunkings(t, file, sample.body, createIntake)
  }
})

t.test('JSON requests of the corpus', async (t) => {
  for (const file of JSON_REQUEST_FILES) {
    const body = corpusFile(file)
    checkChunkings(t, file, body, () => createJsonIntake({ limits: LIMITS }))
  }
})

t.test('request-line fragments of the standard, each wrapped in a batch', async (t) => {
  for (const file of [
    'batch-spec/batch-multipart-fragment-1-url-absolute.txt',
    'batch-spec/batch-multipart-fragment-2-url-absolute-path-host.txt',
  ]) {
    checkChunkings(t, file, fragmentInBatch(file), () => createMultipartIntake({ boundary: 'b' }))
  }
})
