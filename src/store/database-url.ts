// Where the database is: DATABASE_URL (mysql://user:password@host:port/database), or the local default.
export interface DatabaseAddress {
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
}

export const DEFAULT_DATABASE_URL = 'mysql://root@127.0.0.1:3306/odata_registers'

export function parseDatabaseUrl(url: string = process.env.DATABASE_URL || DEFAULT_DATABASE_URL): DatabaseAddress {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`DATABASE_URL is not a URL: expected mysql://user:password@host:port/database`)
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') throw new Error(`DATABASE_URL must start with mysql:// (got ${parsed.protocol}//)`)
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''))
  if (!/^[A-Za-z0-9_]{1,64}$/.test(database)) throw new Error('DATABASE_URL must name a database of letters, digits and underscores, e.g. mysql://root@127.0.0.1:3306/odata_registers')
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    database,
  }
}
