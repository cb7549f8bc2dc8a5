// What a command of the command line is: its name in the table (commands.ts), one line for the list of
// `odata-registers --help`, the usage `odata-registers <command> --help` prints, and what it does.
export interface Command {
  /** One line in the list of commands. */
  readonly summary: string
  /** The whole usage: the synopsis first, then one line per option. */
  readonly usage: string
  /**
   * Runs the command. It is never called with `--help` or `-h` among the arguments (command-line.ts
   * answers those), and refuses an option it does not know before it does anything.
   * Resolves to the exit status (0 when nothing is returned).
   */
  run(args: readonly string[]): Promise<number | undefined>
}
