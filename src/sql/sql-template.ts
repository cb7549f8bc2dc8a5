// The one builder for SQL written by hand: text with its placeholders' values. Identifiers come from the
// model through the one quoter; every value (from a request, a stored row, a setting) stays a `?` with
// its value beside it, in text order, so fragments can be nested and joined freely:
//
//   sql`SELECT ${raw(columns)} FROM ${relation} AS m WHERE m.\`Period\` < ${period}`
//
// A value interpolated into the template becomes a placeholder; a Statement is spliced in with its
// own values; `raw` is text made by the service (never from a request). Statements that run per row of
// a bulk write are built once per table (`id`/`idList` for the column list) and take their rows through
// `rowValues`, which makes the VALUES list in one pass without a closure per row. The one exception to
// "every value a placeholder" needs the driver's escaper and so lives with the driver, in src/store
// (shared-row-values.ts).
import { Statement } from '../statement.js'
import { quoteIdentifier } from './quote-identifier.js'

export { Statement }

/** Text made by the service from the model: no placeholders. */
export function raw(text: string): Statement {
  return new Statement(text, [])
}

/** A quoted identifier. */
export function id(name: string): Statement {
  return raw(quoteIdentifier(name))
}

/** Quoted identifiers separated by commas (a column list), e.g. `` `a`, `b` ``. */
export function idList(names: readonly string[]): Statement {
  let text = ''
  for (let i = 0; i < names.length; i++) text += (i === 0 ? '' : ', ') + quoteIdentifier(names[i]!)
  return raw(text)
}

/** `alias`.`column`, both from the model. */
export function column(alias: string, name: string): Statement {
  return raw(`${alias}.${quoteIdentifier(name)}`)
}

/** Appends without spreading: a fragment may carry tens of thousands of values (a multi-row INSERT). */
function append(target: unknown[], values: readonly unknown[]): void {
  for (let i = 0; i < values.length; i++) target.push(values[i])
}

export function sql(strings: TemplateStringsArray, ...values: readonly unknown[]): Statement {
  let text = strings[0]!
  const parameters: unknown[] = []
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (value instanceof Statement) {
      text += value.text
      append(parameters, value.parameters)
    } else {
      text += '?'
      parameters.push(value)
    }
    text += strings[i + 1]!
  }
  return new Statement(text, parameters)
}

export function join(fragments: readonly Statement[], separator: string | Statement = ', '): Statement {
  const between = typeof separator === 'string' ? separator : separator.text
  let text = ''
  const parameters: unknown[] = []
  for (let i = 0; i < fragments.length; i++) {
    if (i > 0) {
      text += between
      if (typeof separator !== 'string') append(parameters, separator.parameters)
    }
    text += fragments[i]!.text
    append(parameters, fragments[i]!.parameters)
  }
  return new Statement(text, parameters)
}

/** `?, ?, ?`: each value a placeholder (an `IN (…)` list). An empty list is refused: `IN ()` is no SQL. */
export function list(values: readonly unknown[]): Statement {
  if (values.length === 0) throw new Error('an empty value list')
  return new Statement(`?${', ?'.repeat(values.length - 1)}`, values.slice())
}

/**
 * `(?, ?), (?, ?)`: the VALUES list of a multi-row INSERT, one parenthesised group per row, every row
 * `width` values wide (the column list's length; a row of another width is a bug of the caller). The
 * text of one row is made once and repeated; the values are copied in one loop.
 */
export function rowValues(rows: readonly (readonly unknown[])[], width: number): Statement {
  if (rows.length === 0 || width === 0) throw new Error('an empty VALUES list')
  const group = `(?${', ?'.repeat(width - 1)})`
  const parameters = new Array<unknown>(rows.length * width)
  let at = 0
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    if (row.length !== width) throw new Error(`a row of ${row.length} values for ${width} columns`)
    for (let c = 0; c < width; c++) parameters[at++] = row[c]
  }
  return new Statement(group + `, ${group}`.repeat(rows.length - 1), parameters)
}
