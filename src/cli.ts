#!/usr/bin/env node
// `odata-registers`: the command line (src/cli/command-line.ts, the commands in src/cli/commands.ts). This
// file only runs it and turns an error into one line on stderr and exit status 1.
import { runCommandLine } from './cli/command-line.js'
import { ConfigurationError } from './model/configuration.js'
import { refusedConnectionMessage } from './cli/refused-connection.js'
import { DEFAULT_DATABASE_URL } from './store/database-url.js'

runCommandLine(process.argv.slice(2)).then(
  (status) => {
    // Not process.exit: a command that serves keeps the process alive after it resolves.
    process.exitCode = status
  },
  (error: unknown) => {
    if (error instanceof ConfigurationError) console.error(error.message)
    else
      console.error(
        refusedConnectionMessage(error, process.env.DATABASE_URL || DEFAULT_DATABASE_URL) ??
          (error instanceof Error ? error.message : error),
      )
    process.exit(1)
  },
)
