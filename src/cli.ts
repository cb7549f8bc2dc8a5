#!/usr/bin/env node
// `odata-registers`: the command line (src/cli/command-line.ts, the commands in src/cli/commands.ts). This
// file only runs it and turns an error into one line on stderr and exit status 1.
import { runCommandLine } from './cli/command-line.js'
import { ConfigurationError } from './model/configuration.js'
import { DEFAULT_DATABASE_URL, redactDatabaseUrl } from './store/database-url.js'

runCommandLine(process.argv.slice(2)).then(
  (status) => {
    // Not process.exit: a command that serves keeps the process alive after it resolves.
    process.exitCode = status
  },
  (error: unknown) => {
    if (error instanceof ConfigurationError) console.error(error.message)
    else if ((error as { code?: string }).code === 'ECONNREFUSED')
      console.error(
        `No MySQL server answers at ${redactDatabaseUrl(process.env.DATABASE_URL || DEFAULT_DATABASE_URL)}: start one (make run does) or set DATABASE_URL`,
      )
    else console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  },
)
