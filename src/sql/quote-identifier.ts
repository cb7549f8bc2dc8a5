// The one identifier quoter. Identifiers come from the model (validated names), never from a request,
// but quoting them anyway keeps Cyrillic and reserved words (`Period`, `Order`) safe on MySQL and MariaDB.
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``
}
