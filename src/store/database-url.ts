// Where the database is: DATABASE_URL (mysql://user:password@host:port/database), or the local default.
//
// Several hosts may be listed, comma-separated (mysql://root@h1:3311,h2:3312,h3:3313/db): the nodes of
// one multi-primary cluster (MariaDB Galera; docs/scale-out.md). The first host is the one this process
// prefers; the pool goes to the next ones while it does not answer (src/store/pool.ts). Two processes that
// list the nodes in different orders spread their connections over the cluster.
export interface DatabaseHost {
  readonly host: string
  readonly port: number
}

export interface DatabaseAddress {
  /** The preferred host (the first listed). */
  readonly host: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly database: string
  /** Every listed host in order of preference, when several are listed (host and port are the first). */
  readonly hosts?: readonly DatabaseHost[]
}

export const DEFAULT_DATABASE_URL = 'mysql://root@127.0.0.1:3306/odata_registers'

const FORM = 'expected mysql://user:password@host:port/database (or host1:port1,host2:port2,… for the nodes of a cluster)'

/**
 * The URL as it may be printed or logged: its password masked (`mysql://app:***@db:3306/x`). Without an
 * `@` there is no userinfo to mask, but a URL written without one may still hold a password where the
 * port goes (`mysql://app:S3cret/x`): what follows a colon is masked when it is not a port.
 */
export function redactDatabaseUrl(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0] ?? ''
  const rest = url.slice(scheme.length)
  const end = rest.search(/[/?#]/)
  const authority = end < 0 ? rest : rest.slice(0, end)
  const at = authority.lastIndexOf('@')
  let shown: string
  if (at >= 0) {
    const colon = authority.indexOf(':')
    shown = colon >= 0 && colon < at ? `${authority.slice(0, colon)}:***${authority.slice(at)}` : authority
  } else {
    shown = authority
      .split(',')
      .map((host) => (/^(\[[^\]]*\]|[^:]*)(:\d{1,5})?$/.test(host) ? host : host.replace(/^(\[[^\]]*\]|[^:]*):.*$/, '$1:***')))
      .join(',')
  }
  return scheme + shown + (end < 0 ? '' : rest.slice(end))
}

function parseHost(text: string): DatabaseHost {
  // host, host:port, [v6], [v6]:port
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(text)
  // Printed masked: without an `@`, what stands after a colon may be a password written where the port goes.
  if (!match) throw new Error(`DATABASE_URL has a host that is not host:port (${JSON.stringify(redactDatabaseUrl(text))}): ${FORM}`)
  const port = match[2] === undefined ? 3306 : Number(match[2])
  if (port < 1 || port > 65535) throw new Error(`DATABASE_URL has a port out of range (${match[2]})`)
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1')
  return { host: decodeURIComponent(host) || '127.0.0.1', port }
}

export function parseDatabaseUrl(url: string = process.env.DATABASE_URL || DEFAULT_DATABASE_URL): DatabaseAddress {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url)
  if (!scheme) throw new Error(`DATABASE_URL is not a URL: ${FORM}`)
  if (scheme[1] !== 'mysql' && scheme[1] !== 'mariadb') throw new Error(`DATABASE_URL must start with mysql:// (got ${scheme[1]}://)`)
  const rest = url.slice(scheme[0].length).replace(/[?#].*$/, '')
  const slash = rest.indexOf('/')
  const authority = slash < 0 ? rest : rest.slice(0, slash)
  const path = slash < 0 ? '' : rest.slice(slash + 1)
  const at = authority.lastIndexOf('@')
  const userinfo = at < 0 ? '' : authority.slice(0, at)
  const hostList = at < 0 ? authority : authority.slice(at + 1)
  let database: string
  let user: string
  let password: string
  try {
    database = decodeURIComponent(path)
    const colon = userinfo.indexOf(':')
    user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon)) || 'root'
    password = colon < 0 ? '' : decodeURIComponent(userinfo.slice(colon + 1))
  } catch {
    throw new Error(`DATABASE_URL is not a URL: ${FORM}`)
  }
  if (!/^[A-Za-z0-9_]{1,64}$/.test(database))
    throw new Error(
      'DATABASE_URL must name a database of letters, digits and underscores, e.g. mysql://root@127.0.0.1:3306/odata_registers',
    )
  const hosts = hostList === '' ? [{ host: '127.0.0.1', port: 3306 }] : hostList.split(',').map(parseHost)
  const unique = new Set(hosts.map((h) => `${h.host}:${h.port}`))
  if (unique.size !== hosts.length) throw new Error('DATABASE_URL lists a host twice')
  const address = { host: hosts[0]!.host, port: hosts[0]!.port, user, password, database }
  return hosts.length > 1 ? { ...address, hosts } : address
}
