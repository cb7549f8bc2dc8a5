// Every command of `odata-registers`, in the order `--help` lists them. A new command is one entry here:
// its summary, its usage and what it runs (command.ts); help and unknown commands are handled for it
// (command-line.ts).
import { driveCommand, DRIVE_USAGE } from '../tools/drive/drive-command.js'
import { loadCommand, LOAD_USAGE } from '../tools/load/load-command.js'
import { checkConfigCommand } from './check-config-command.js'
import type { Command } from './command.js'
import { migrateCommand, recomputeTotalsCommand, seedCommand } from './database-commands.js'
import { serveCommand } from './serve-command.js'

export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: serveCommand,
  'check-config': checkConfigCommand,
  migrate: migrateCommand,
  seed: seedCommand,
  'recompute-totals': recomputeTotalsCommand,
  load: {
    summary: 'load CSV or NDJSON files into the service through $batch, resumably',
    usage: LOAD_USAGE,
    run: loadCommand,
  },
  drive: {
    summary: 'drive a workload of $batch requests against the service and report latencies',
    usage: DRIVE_USAGE,
    run: driveCommand,
  },
}
