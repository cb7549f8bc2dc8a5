// How far a load is: on a terminal a progress bar (rows with their outcome, rows/s, ETA from the share of
// the input done); otherwise one JSON line a second on stderr, for a log or a pipeline to read.
import cliProgress from 'cli-progress'

export interface ProgressFigures {
  readonly file: string
  /** Rows read so far (the outcomes below trail them by the change sets in flight). */
  readonly rows: number
  readonly loaded: number
  readonly present: number
  readonly rejected: number
  readonly resumed: number
  /** Share of the input read, 0 to 1, when its size is known. */
  readonly fraction: number | undefined
}

export interface LoadProgress {
  update(figures: ProgressFigures): void
  stop(): void
}

export function createProgress(options: { terminal: boolean; intervalMs?: number }): LoadProgress {
  const started = Date.now()
  const rate = (rows: number) => rows / Math.max((Date.now() - started) / 1000, 0.001)
  const eta = (fraction: number | undefined) =>
    fraction && fraction > 0.001 ? ((Date.now() - started) / 1000) * (1 / fraction - 1) : undefined
  if (options.terminal) {
    const bar = new cliProgress.SingleBar(
      {
        format: 'load {file} [{bar}] {percentage}% | {rows} rows | {rate} rows/s | eta {etaText} | rejected {rejected}',
        hideCursor: true,
        fps: 5,
        stream: process.stderr,
      },
      cliProgress.Presets.shades_classic,
    )
    let begun = false
    return {
      update(f) {
        const done = f.loaded + f.present + f.rejected + f.resumed
        const values = {
          file: f.file,
          rows: done,
          rate: Math.round(rate(done - f.resumed)),
          etaText: formatSeconds(eta(f.fraction)),
          rejected: f.rejected,
        }
        if (!begun) {
          bar.start(1000, 0, values)
          begun = true
        }
        bar.update(Math.round((f.fraction ?? 0) * 1000), values)
      },
      stop: () => begun && bar.stop(),
    }
  }
  let last = 0
  let latest: ProgressFigures | undefined
  const emit = () => {
    if (!latest) return
    const seconds = eta(latest.fraction)
    const done = latest.loaded + latest.present + latest.rejected
    process.stderr.write(
      `${JSON.stringify({ event: 'progress', ...latest, rowsPerSecond: Math.round(rate(done)), etaSeconds: seconds === undefined ? null : Math.round(seconds) })}\n`,
    )
  }
  return {
    update(f) {
      latest = f
      if (Date.now() - last >= (options.intervalMs ?? 1000)) {
        last = Date.now()
        emit()
      }
    },
    stop: emit,
  }
}

function formatSeconds(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?'
  if (seconds < 60) return `${Math.round(seconds)}s`
  return `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`
}
