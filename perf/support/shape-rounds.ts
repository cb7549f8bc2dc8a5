// Compares write shapes of the same transactions against the transactions without the extra write, for the
// shape benchmarks (change-record-shapes, request-log-shapes): each round measures the baseline, every shape,
// then the baseline again, and a shape's ratio is to the mean of the two baselines around it, so that a
// machine that slows during a round slows both sides. The figures printed are the medians of the rounds.
import type { Pool, PoolConnection } from '../../src/store/pool.js'
import { printResult } from './report.js'

export interface ShapeRounds<Shape extends string> {
  readonly benchmark: string
  readonly pool: Pool
  readonly clients: number
  /** Rows one transaction writes. */
  readonly rows: number
  readonly seconds: number
  readonly rounds: number
  /** The shape that writes nothing extra: the baseline. */
  readonly baseline: Shape
  readonly baselineName: string
  readonly shapes: readonly Shape[]
  readonly transaction: (connection: PoolConnection, shape: Shape) => Promise<void>
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function compareShapes<Shape extends string>(options: ShapeRounds<Shape>): Promise<void> {
  /** Rows per second of the shape, `clients` connections for `seconds`. */
  const measure = async (shape: Shape, seconds: number): Promise<number> => {
    let done = 0
    const started = process.hrtime.bigint()
    const deadline = started + BigInt(Math.round(seconds * 1e9))
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        const connection = await options.pool.getConnection()
        try {
          while (process.hrtime.bigint() < deadline) {
            await options.transaction(connection, shape)
            done += options.rows
          }
        } finally {
          connection.release()
        }
      }),
    )
    return done / (Number(process.hrtime.bigint() - started) / 1e9)
  }

  const { shapes } = options
  for (const shape of [options.baseline, ...shapes]) await measure(shape, 1) // warm-up
  const ratios = new Map<Shape, number[]>(shapes.map((shape) => [shape, []]))
  const rates = new Map<Shape, number[]>(shapes.map((shape) => [shape, []]))
  const bare: number[] = []
  for (let round = 0; round < options.rounds; round++) {
    const before = await measure(options.baseline, options.seconds)
    const measured = new Map<Shape, number>()
    for (const shape of shapes) measured.set(shape, await measure(shape, options.seconds))
    const after = await measure(options.baseline, options.seconds)
    const baseline = (before + after) / 2
    bare.push(baseline)
    for (const shape of shapes) {
      ratios.get(shape)!.push(measured.get(shape)! / baseline)
      rates.get(shape)!.push(measured.get(shape)!)
    }
  }
  for (const shape of shapes) {
    printResult({
      benchmark: `${options.benchmark} ${shape}`,
      figure: median(rates.get(shape)!),
      unit: 'rows/s',
      baseline: median(bare),
      baselineName: options.baselineName,
      extra: { rounds: options.rounds, ratioRuns: ratios.get(shape), ratioMedian: median(ratios.get(shape)!) },
    })
    console.log(
      `  ${shape}: median of the rounds' ratios ${median(ratios.get(shape)!).toFixed(2)} (rounds: ${ratios
        .get(shape)!
        .map((r) => r.toFixed(2))
        .join(', ')})`,
    )
  }
}
