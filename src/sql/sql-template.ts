// The one builder for SQL written by hand: text with its placeholders' values. Identifiers come from the
// model through the one quoter; every value from a request (a period, a bound Condition's literals)
// stays a `?` with its value beside it, in text order, so fragments can be nested and joined freely:
//
//   sql`SELECT ${raw(columns)} FROM ${relation} AS m WHERE m.\`Period\` < ${period}`
//
// A value interpolated into the template becomes a placeholder; a SqlFragment is spliced in with its
// own values; `raw` is text made by the service (never from a request).
import { quoteIdentifier } from './quote-identifier.js'

export class SqlFragment {
  constructor(
    readonly text: string,
    readonly parameters: readonly unknown[],
  ) {}
}

/** Text made by the service from the model: no placeholders. */
export function raw(text: string): SqlFragment {
  return new SqlFragment(text, [])
}

/** A quoted identifier. */
export function id(name: string): SqlFragment {
  return raw(quoteIdentifier(name))
}

/** `alias`.`column`, both from the model. */
export function column(alias: string, name: string): SqlFragment {
  return raw(`${alias}.${quoteIdentifier(name)}`)
}

export function sql(strings: TemplateStringsArray, ...values: readonly unknown[]): SqlFragment {
  let text = strings[0]!
  const parameters: unknown[] = []
  values.forEach((value, i) => {
    if (value instanceof SqlFragment) {
      text += value.text
      parameters.push(...value.parameters)
    } else {
      text += '?'
      parameters.push(value)
    }
    text += strings[i + 1]!
  })
  return new SqlFragment(text, parameters)
}

export function join(fragments: readonly SqlFragment[], separator = ', '): SqlFragment {
  return new SqlFragment(
    fragments.map((f) => f.text).join(separator),
    fragments.flatMap((f) => f.parameters),
  )
}

/** A compiled query (text and parameters) as a fragment. */
export function fragment(query: { readonly sql: string; readonly parameters: readonly unknown[] }): SqlFragment {
  return new SqlFragment(query.sql, query.parameters)
}
