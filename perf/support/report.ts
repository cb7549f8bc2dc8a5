// One line per benchmark figure, then a JSON line the runner collects into perf/results/.
export interface BenchResult {
  readonly benchmark: string
  readonly figure: number
  readonly unit: string
  readonly baseline: number
  readonly baselineName: string
  /** The ratio the issue asks for (figure / baseline, or baseline / figure when `lowerIsBetter`). */
  readonly target?: number
  readonly lowerIsBetter?: boolean
  readonly extra?: Record<string, unknown>
}

export function printResult(result: BenchResult): void {
  const ratio = result.lowerIsBetter ? result.baseline / result.figure : result.figure / result.baseline
  const verdict =
    result.target === undefined
      ? ''
      : ratio >= result.target
        ? ` (target ≥ ${result.target}: met)`
        : ` (target ≥ ${result.target}: NOT met)`
  const format = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2))
  console.log(
    `${result.benchmark}: ${format(result.figure)} ${result.unit}; baseline (${result.baselineName}) ${format(result.baseline)} ${result.unit}; ratio ${ratio.toFixed(2)}${verdict}`,
  )
  console.log(`BENCH_JSON ${JSON.stringify({ ...result, ratio })}`)
}
