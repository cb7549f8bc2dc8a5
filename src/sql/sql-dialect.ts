// What differs between the MySQL-protocol servers the service runs on. The compiler only emits SQL that
// MySQL 8 and MariaDB 10.6+ both accept, so today the one dialect serves both; a server that needs
// something else gets a small object here, not a branch in the compiler.
export interface SqlDialect {
  /** A value as utf8mb4 text comparing byte-wise (utf8mb4_bin, the collation of every table). */
  asBinaryText(sql: string): string
  /** LIMIT's "no limit" for a query with only an OFFSET (MySQL has no LIMIT ALL). */
  readonly unlimitedRows: string
}

export const MYSQL_DIALECT: SqlDialect = Object.freeze({
  asBinaryText: (sql: string) => `CAST(${sql} AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin`,
  unlimitedRows: '18446744073709551615',
})
