// How far an export is: on a terminal a progress bar (rows, rows/s, share of the rows when the service
// counted them); otherwise one JSON line a second on stderr, for a log or a pipeline to read.
import cliProgress from 'cli-progress'

export interface ExportProgress {
  update(rows: number, total: number | undefined): void
  stop(): void
}

export function createExportProgress(options: { terminal: boolean; label: string }): ExportProgress {
  const started = Date.now()
  const rate = (rows: number) => Math.round(rows / Math.max((Date.now() - started) / 1000, 0.001))
  if (options.terminal) {
    const bar = new cliProgress.SingleBar(
      { format: `export ${options.label} [{bar}] {value}/{total} rows | {rate} rows/s`, hideCursor: true, fps: 5, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    )
    let begun = false
    return {
      update(rows, total) {
        if (!begun) bar.start(total ?? rows, rows, { rate: rate(rows) })
        begun = true
        bar.setTotal(Math.max(total ?? rows, rows))
        bar.update(rows, { rate: rate(rows) })
      },
      stop: () => begun && bar.stop(),
    }
  }
  let last = 0
  let latest: { rows: number; total: number | undefined } | undefined
  const emit = () => {
    if (latest)
      process.stderr.write(
        `${JSON.stringify({ event: 'progress', resource: options.label, ...latest, rowsPerSecond: rate(latest.rows) })}\n`,
      )
  }
  return {
    update(rows, total) {
      latest = { rows, total }
      if (Date.now() - last >= 1000) {
        last = Date.now()
        emit()
      }
    },
    stop: emit,
  }
}
