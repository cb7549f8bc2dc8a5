// The one shape of a statement: SQL text with `?` placeholders and their values, in text order. The query
// compiler returns one (src/sql/query-compiler.ts), the builder makes and nests them (src/sql/sql-template.ts),
// a virtual table's relation is one, and the database port runs one (src/store/database.ts). A leaf of its
// own so that the binder's derived relation (src/odata) can hold one without knowing how SQL is built.
export class Statement {
  constructor(
    readonly text: string,
    readonly parameters: readonly unknown[],
  ) {}
}
