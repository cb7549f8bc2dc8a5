// The flags of a tool's command line: `--name value`, `--name=value`, repeatable flags, boolean flags,
// and the positional arguments left over. Unknown flags are refused by name. Imports no HTTP client:
// `serve` reads its command line with it.

/** The flags every client of the service takes: where it is and how to log in (`serviceConnection`). */
export const SERVICE_VALUES = ['url', 'token', 'user', 'header'] as const

export interface CommandArguments {
  readonly positional: readonly string[]
  value(name: string): string | undefined
  values(name: string): string[]
  flag(name: string): boolean
  number(name: string, fallback: number): number
}

export function readArguments(args: readonly string[], spec: { values: readonly string[]; flags: readonly string[] }): CommandArguments {
  const values = new Map<string, string[]>()
  const flags = new Set<string>()
  const positional: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2)
    if (spec.flags.includes(name)) {
      flags.add(name)
      continue
    }
    if (!spec.values.includes(name))
      throw new Error(`unknown option --${name}; options: ${[...spec.values, ...spec.flags].map((n) => `--${n}`).join(', ') || 'none'}`)
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i]
    if (value === undefined) throw new Error(`--${name} needs a value`)
    values.set(name, [...(values.get(name) ?? []), value])
  }
  return {
    positional,
    value: (name) => values.get(name)?.at(-1),
    values: (name) => values.get(name) ?? [],
    flag: (name) => flags.has(name),
    number(name, fallback) {
      const text = values.get(name)?.at(-1)
      if (text === undefined) return fallback
      const n = Number(text)
      if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number (got ${text})`)
      return n
    },
  }
}

/** `--header 'Name: value'` (repeatable) as a header object. */
export function headersFrom(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) throw new Error(`--header must be 'Name: value' (got ${line})`)
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

/** The service root and credentials of `SERVICE_VALUES` (ODATA_URL, else the local default, when --url is absent). */
export function serviceConnection(a: CommandArguments): {
  root: string
  authorization: string | undefined
  headers: Record<string, string>
} {
  return {
    root: a.value('url') ?? process.env.ODATA_URL ?? 'http://127.0.0.1:8080/api/v4/',
    authorization: authorizationFrom({ token: a.value('token'), user: a.value('user') }),
    headers: headersFrom(a.values('header')),
  }
}

/** `--token T` and `--user name:password` as an Authorization value. */
export function authorizationFrom(options: { token?: string; user?: string }): string | undefined {
  if (options.token) return `Bearer ${options.token}`
  if (options.user) return `Basic ${Buffer.from(options.user).toString('base64')}`
  return undefined
}
