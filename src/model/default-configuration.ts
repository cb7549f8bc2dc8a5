// The configuration the commands read when CONFIG is not set: the demo configuration shipped in the
// package's own `config/`, found from where this file lies, so that an installed `odata-registers` finds
// it from any directory. (A file of the current directory is never picked up unasked: CONFIG names it.)
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** `config/demo.json` of the package, absolute. */
export const PACKAGED_CONFIGURATION_FILE = fileURLToPath(new URL('../../../config/demo.json', import.meta.url))

/**
 * The configuration file: CONFIG when set, else the package's demo configuration, written relative to the
 * current directory when it lies under it (`config/demo.json` in a checkout), so that messages stay short.
 */
export function configurationFile(environment: Readonly<Record<string, string | undefined>>): string {
  if (environment.CONFIG) return environment.CONFIG
  const relative = path.relative(process.cwd(), PACKAGED_CONFIGURATION_FILE)
  return relative.startsWith('..') || path.isAbsolute(relative) ? PACKAGED_CONFIGURATION_FILE : relative
}
