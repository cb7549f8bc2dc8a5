// The options of the service's own commands (serve, migrate, seed, …), read with the tools' reader: an
// option a command does not take, or an argument it does not take, is refused before anything is done.
import { type CommandArguments, readArguments } from '../tools/shared/command-arguments.js'

export function commandOptions(
  command: string,
  args: readonly string[],
  spec: { values?: readonly string[]; flags?: readonly string[] } = {},
): CommandArguments {
  const options = readArguments(args, { values: spec.values ?? [], flags: spec.flags ?? [] })
  if (options.positional.length > 0)
    throw new Error(`${command} takes no argument ${JSON.stringify(options.positional[0])} (odata-registers ${command} --help)`)
  return options
}
