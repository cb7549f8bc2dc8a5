// The canonical functions of OData 4.01 (URL Conventions 5.1.1.5–5.1.1.9, ABNF methodCallExpr) that an
// expression may call, with the number of arguments each takes. A name not listed here is refused while
// parsing, with its position. Names are case-sensitive, as in the ABNF (%s rules and RFC 7405 usage).
//
// Left out on purpose: the geo.* functions (no spatial types in the model), the collection functions
// hassubset/hassubsequence, and case() — nothing in the service could evaluate them. cast and isof are
// not here: their second argument is a type name, not an expression (see grammar/cast-expr.ts).

export interface FunctionArity {
  readonly min: number
  readonly max: number
}

const unary: FunctionArity = { min: 1, max: 1 }
const binary: FunctionArity = { min: 2, max: 2 }
const nullary: FunctionArity = { min: 0, max: 0 }

export const CANONICAL_FUNCTIONS = {
  // Strings (5.1.1.5, 5.1.1.7)
  concat: binary,
  contains: binary,
  endswith: binary,
  indexof: binary,
  length: unary,
  startswith: binary,
  substring: { min: 2, max: 3 },
  matchesPattern: binary,
  tolower: unary,
  toupper: unary,
  trim: unary,
  // Date and time (5.1.1.8)
  year: unary,
  month: unary,
  day: unary,
  hour: unary,
  minute: unary,
  second: unary,
  fractionalseconds: unary,
  totalseconds: unary,
  date: unary,
  time: unary,
  totaloffsetminutes: unary,
  mindatetime: nullary,
  maxdatetime: nullary,
  now: nullary,
  // Arithmetic (5.1.1.9)
  round: unary,
  floor: unary,
  ceiling: unary,
} as const satisfies Record<string, FunctionArity>

export type CanonicalFunctionName = keyof typeof CANONICAL_FUNCTIONS

// A Map, not `name in CANONICAL_FUNCTIONS`: a property name such as `constructor` or `__proto__` must not
// be found through the prototype chain.
const ARITY_BY_NAME: ReadonlyMap<string, FunctionArity> = new Map(Object.entries(CANONICAL_FUNCTIONS))

/** The arity of a canonical function, or undefined for any other name. */
export function canonicalFunctionArity(name: string): FunctionArity | undefined {
  return ARITY_BY_NAME.get(name)
}
