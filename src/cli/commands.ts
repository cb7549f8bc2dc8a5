// Every command of `odata-registers`, in the order `--help` lists them. A new command is one entry here:
// its summary, its usage and what it runs (command.ts); help and unknown commands are handled for it
// (command-line.ts). The code of a command is imported when it runs, so that help loads none of it.
import { DRIVE_USAGE } from '../tools/drive/drive-usage.js'
import { EXPORT_USAGE } from '../tools/export/export-usage.js'
import { LOAD_USAGE } from '../tools/load/load-usage.js'
import type { Command } from './command.js'

const ENVIRONMENT = '  Environment: CONFIG (the configuration file), DATABASE_URL (docs/settings.md).'

export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    summary: 'migrate, seed an empty database with the demo data, and serve',
    usage: `odata-registers serve [--scale N]
  Checks the environment and the configuration, brings the schema to the configuration's, seeds the demo
  data when the database is empty, and serves on HOST:PORT (127.0.0.1:8080) with WORKERS processes (half the
  cores, at least one). SIGTERM or SIGINT stops it gracefully (STOP_TIMEOUT_SECONDS).
  --scale N   the demo data's scale when it seeds (SEED_SCALE, 1; 0 seeds nothing)
  Environment: CONFIG, DATABASE_URL, HOST, PORT, WORKERS, LOG_LEVEL, METRICS_TOKEN, CORS_ORIGINS, … (docs/settings.md)`,
    run: async (args) => (await import('./serve-command.js')).serveCommand(args),
  },
  'check-config': {
    summary: 'check the configuration file and the environment, without the database',
    usage: `odata-registers check-config
  Checks the configuration file (CONFIG, else the package's config/demo.json) against its schema and its
  cross-references, and every environment variable (docs/settings.md); names every problem and exits 1,
  or prints one line and exits 0. Connects to nothing.`,
    run: async (args) => (await import('./check-config-command.js')).checkConfigCommand(args),
  },
  migrate: {
    summary: "create the database and bring its schema to the configuration's (tables, columns, indexes)",
    usage: `odata-registers migrate
  Creates the database when missing, then every table, column and index the configuration needs; widens
  columns that grew. Never drops or narrows anything (docs/operations.md, "Upgrading").
${ENVIRONMENT}`,
    run: async (args) => (await import('./database-commands.js')).migrateCommand(args),
  },
  seed: {
    summary: 'migrate, then fill an empty database with the demo data',
    usage: `odata-registers seed [--scale N] [--force]
  Migrates, then writes the demo data when the database holds none.
  --scale N   how much: 1,000 posted documents per unit, 0 to 100000 (SEED_SCALE, 1)
  --force     seed even when the database holds data
${ENVIRONMENT}`,
    run: async (args) => (await import('./database-commands.js')).seedCommand(args),
  },
  'recompute-totals': {
    summary: 'rebuild every register total from the movements',
    usage: `odata-registers recompute-totals [--piece-rows N]
  Migrates, then rebuilds the totals tables of every register from its active movements, in pieces that are
  each their own transaction; an interrupted rebuild goes on where it stopped when run again. Writes may go
  on meanwhile (docs/totals.md).
  --piece-rows N   the movements one piece reads at most (200000; a month holding more is a piece of its own)
${ENVIRONMENT}`,
    run: async (args) => (await import('./database-commands.js')).recomputeTotalsCommand(args),
  },
  verify: {
    summary: 'check every register total against a recomputation from the movements, writing nothing',
    usage: `odata-registers verify
  Compares every totals table with a recomputation from the movements, in the database named by DATABASE_URL
  (configuration: CONFIG, or the package's config/demo.json). Writes nothing, locks nothing; right while writes
  go on. A group of zeros that the recomputation does not have is no difference (it means the same as no row).
  Exit status: 0 the totals are equal to a recomputation; 1 they differ (the differences are printed);
  2 the check could not be made (no database, a wrong argument, a schema older than the code: run migrate).
${ENVIRONMENT}`,
    run: async (args) => (await import('./database-commands.js')).verifyCommand(args),
  },
  'prune-log': {
    summary: "apply the request log's retention rules once (REQUEST_LOG_KEEP_DAYS, REQUEST_LOG_KEEP_ROWS)",
    usage: `odata-registers prune-log
  Removes the request-log entries older than REQUEST_LOG_KEEP_DAYS days, or past the newest
  REQUEST_LOG_KEEP_ROWS, in small chunks (docs/request-log.md); the service does the same by itself
  while it runs. For a timer of the operator's. Refuses to run when neither setting is given.
${ENVIRONMENT}`,
    run: async (args) => (await import('./database-commands.js')).pruneLogCommand(args),
  },
  load: {
    summary: 'load CSV or NDJSON files into the service through $batch, resumably',
    usage: LOAD_USAGE,
    run: async (args) => (await import('../tools/load/load-command.js')).loadCommand(args),
  },
  drive: {
    summary: 'drive a workload of $batch requests against the service and report latencies',
    usage: DRIVE_USAGE,
    run: async (args) => (await import('../tools/drive/drive-command.js')).driveCommand(args),
  },
  export: {
    summary: 'export a set, a filtered set or a virtual table to NDJSON, CSV or Parquet, or only what changed since the last run',
    usage: EXPORT_USAGE,
    run: async (args) => (await import('../tools/export/export-command.js')).exportCommand(args),
  },
}
