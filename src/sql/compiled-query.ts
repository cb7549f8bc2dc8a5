// SQL text with `?` placeholders and their values, in order. Values come from requests (literals, paging
// tokens) or from the model; the text only ever holds identifiers (quoted by quote-identifier.ts) and
// fixed SQL written here.
export interface CompiledQuery {
  readonly sql: string
  readonly parameters: readonly unknown[]
}
