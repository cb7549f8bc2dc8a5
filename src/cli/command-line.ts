// The command line's one entry: `odata-registers <command> [arguments]`. Help is answered here, before any
// command runs, so that no command can act on it: `--help`, `-h` and `help` list the commands;
// `<command> --help` (or `-h`, anywhere among its arguments) and `help <command>` print its usage. Either
// exits 0 and touches nothing. A command is added to the table in commands.ts, nowhere else.
import { COMMANDS } from './commands.js'

const HELP_WORDS = new Set(['--help', '-h', 'help'])

/** The list of commands, for `odata-registers --help`. */
export function topLevelHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
  return [
    'odata-registers: an OData v4 service over 1C:Enterprise-style catalogs, documents and registers on MySQL',
    '',
    'usage: odata-registers <command> [arguments]',
    '',
    'commands:',
    ...lines,
    '',
    'odata-registers <command> --help prints what a command takes. Settings come from the environment',
    '(CONFIG, DATABASE_URL, PORT, …): docs/settings.md in the package.',
  ].join('\n')
}

/** Runs the command line's arguments (without node and the script); resolves to the exit status. */
export async function runCommandLine(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv
  if (name === undefined) {
    console.error(`a command is needed\n\n${topLevelHelp()}`)
    return 1
  }
  if (HELP_WORDS.has(name)) {
    const about = args[0]
    if (about === undefined) {
      console.log(topLevelHelp())
      return 0
    }
    const command = COMMANDS[about]
    if (command === undefined) throw new Error(`unknown command ${about}; commands: ${Object.keys(COMMANDS).join(', ')}`)
    console.log(command.usage)
    return 0
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined)
    throw new Error(`unknown command ${name}; commands: ${Object.keys(COMMANDS).join(', ')} (odata-registers --help)`)
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.usage)
    return 0
  }
  return (await command.run(args)) ?? 0
}
