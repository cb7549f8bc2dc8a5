// Two pieces of a JSON `$batch` of creates, timed in this process by build, with no server and no database:
// the intake of a body of 100 catalog creates in one atomicity group (64 KB chunks), and the writing of the
// answer of such a change set (100 answers of 201 with their entity). The end-to-end figure (batch-cpu) moves
// by a few per cent when one of them changes, which this shared machine cannot show; here each is timed on
// its own, the builds alternating round by round.
// Printed per build: µs per operation of each piece, the median of the rounds after two of warm-up.
// Run: node scripts/run-benchmarks.mjs batch-json-pieces   (BENCH_COMPARE_BUILDS: comma-separated folders
// holding a checkout of another commit built with `make build`, as batch-cpu takes them; BENCH_ROUNDS,
// default 12)
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { JsonBatchWriter } from '../src/batch/answer/json-batch-writer.js'
import type { createJsonIntake } from '../src/batch/intake/json/json-intake.js'
import { catalogCreateBatch } from './support/catalog-create-batch.js'

const OPERATIONS = 100
const BODIES = 50
const CHUNK_BYTES = 64 * 1024
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 12))
const WARM_UP_ROUNDS = 2
const COMPARED = (process.env.BENCH_COMPARE_BUILDS ?? '')
  .split(',')
  .map((folder) => folder.trim())
  .filter((folder) => folder !== '')

interface Build {
  readonly name: string
  readonly createJsonIntake: typeof createJsonIntake
  readonly JsonBatchWriter: typeof JsonBatchWriter
}

/** This build's modules, or those of the build in `folder`. */
async function loadBuild(folder: string | undefined): Promise<Build> {
  const root = folder === undefined ? new URL('../', import.meta.url) : pathToFileURL(`${path.resolve(folder)}/build/`)
  const intake = (await import(new URL('src/batch/intake/json/json-intake.js', root).href)) as { createJsonIntake: typeof createJsonIntake }
  const writer = (await import(new URL('src/batch/answer/json-batch-writer.js', root).href)) as { JsonBatchWriter: typeof JsonBatchWriter }
  return { name: folder ?? 'this build', createJsonIntake: intake.createJsonIntake, JsonBatchWriter: writer.JsonBatchWriter }
}

const bodies = Array.from({ length: BODIES }, () => catalogCreateBatch(OPERATIONS, 'bench').body)

// The answer of one change set, shaped as the service answers a create (write-result.ts).
const ENTITY_TYPE = 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8'
const planned = Array.from({ length: OPERATIONS }, (_, i) => ({ operation: { id: String(i + 1), atomicityGroup: 'g', index: i } }))
const outcomes = planned.map((p, i) => {
  const key = `0b1c2d3e-4f50-6172-8394-a5b6c7d8e9${String(i).padStart(2, '0')}`
  const version = `AAAAAgAA${String(i).padStart(3, '0')}=`
  return {
    planned: p,
    response: {
      status: 201,
      headers: { 'Content-Type': ENTITY_TYPE, ETag: `W/"${version}"`, Location: `http://127.0.0.1/api/v4/Catalog_Products(${key})` },
      body: `{"@odata.context":"http://127.0.0.1/api/v4/$metadata#Catalog_Products/$entity","@odata.etag":"W/\\"${version}\\"","Ref_Key":"${key}","DataVersion":"${version}","DeletionMark":false,"Code":"U${i}","Description":"Bench item ${i}","Article":"bench","Unit":"pcs"}`,
    },
  }
})
const step = { kind: 'changeSet' as const, atomicityGroup: 'g', operations: planned }
let answerBytes = 0
const sink = {
  begin() {},
  write(chunk: string) {
    answerBytes += chunk.length
    return true
  },
  // As the response does: the answer's text flattened and encoded once.
  end(chunk: string) {
    answerBytes += Buffer.byteLength(chunk)
  },
  send() {},
}

function timeIntake(build: Build): number {
  const started = process.hrtime.bigint()
  for (const body of bodies) {
    const intake = build.createJsonIntake()
    for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) intake.push(body.subarray(offset, offset + CHUNK_BYTES))
    if (intake.end().operations.length !== OPERATIONS) throw new Error('the intake lost operations')
  }
  return Number(process.hrtime.bigint() - started) / 1000 / (BODIES * OPERATIONS)
}

function timeAnswer(build: Build): number {
  const repeats = 500
  const started = process.hrtime.bigint()
  for (let r = 0; r < repeats; r++) {
    // biome-ignore lint/suspicious/noExplicitAny: the sink and outcomes carry only what the writer reads
    const writer = new build.JsonBatchWriter(sink as any, {})
    // biome-ignore lint/suspicious/noExplicitAny: as above
    writer.changeSet(step as any, outcomes as any, undefined)
    writer.finish()
  }
  return Number(process.hrtime.bigint() - started) / 1000 / (repeats * OPERATIONS)
}

const builds = [await loadBuild(undefined), ...(await Promise.all(COMPARED.map(loadBuild)))]
const intakeTimes = builds.map(() => [] as number[])
const answerTimes = builds.map(() => [] as number[])
for (let round = 0; round < ROUNDS; round++) {
  builds.forEach((build, i) => {
    intakeTimes[i]!.push(timeIntake(build))
    answerTimes[i]!.push(timeAnswer(build))
  })
}
if (answerBytes === 0) throw new Error('no answer was written')
const median = (values: number[]) => {
  const sorted = values.slice(WARM_UP_ROUNDS).sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
console.log(`batch-json-pieces: ${BODIES} bodies of ${OPERATIONS} creates, ${ROUNDS} rounds alternating the builds`)
builds.forEach((build, i) => {
  const intake = median(intakeTimes[i]!)
  const answer = median(answerTimes[i]!)
  const relative =
    i === 0 ? '' : ` (÷ this build: ${(intake / median(intakeTimes[0]!)).toFixed(2)}, ${(answer / median(answerTimes[0]!)).toFixed(2)})`
  console.log(`  ${build.name}: the JSON intake ${intake.toFixed(3)} µs per operation, the answer ${answer.toFixed(3)} µs${relative}`)
  console.log(
    `BENCH_JSON ${JSON.stringify({ benchmark: 'batch-json-pieces', build: build.name, intakeMicros: intake, answerMicros: answer })}`,
  )
})
