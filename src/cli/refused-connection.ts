// The one line the command line prints for a refused connection. A refusal carries the address it was
// refused at: when that is one of DATABASE_URL's hosts, the database is down (a command that talks to
// MySQL); any other address is what the command was pointed at (a loader's or driver's --url), and the
// line names that address, never a database the command does not use.
import { parseDatabaseUrl, redactDatabaseUrl } from '../store/database-url.js'

interface RefusedConnection {
  readonly code?: string
  readonly address?: string
  readonly port?: number
  readonly cause?: unknown
}

/** The line for an ECONNREFUSED error (its own or its cause's), or undefined for any other error. */
export function refusedConnectionMessage(error: unknown, databaseUrl: string): string | undefined {
  const refused = [error, (error as RefusedConnection | undefined)?.cause].find(
    (candidate) => (candidate as RefusedConnection | undefined)?.code === 'ECONNREFUSED',
  ) as RefusedConnection | undefined
  if (!refused) return undefined
  let databasePorts: number[] = []
  try {
    const database = parseDatabaseUrl(databaseUrl)
    databasePorts = (database.hosts ?? [database]).map((host) => host.port)
  } catch {
    // an unreadable DATABASE_URL is named by the commands that use it
  }
  if (refused.port === undefined || databasePorts.includes(refused.port))
    return `No MySQL server answers at ${redactDatabaseUrl(databaseUrl)}: start one (make run does) or set DATABASE_URL`
  return `Nothing answers at ${refused.address ?? 'the address'}:${refused.port} (connection refused): is the service running there?`
}
