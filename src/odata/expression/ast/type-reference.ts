// ABNF optionallyQualifiedTypeName, the type argument of cast() and isof(): `Edm.Decimal`,
// `StandardODATA.Catalog_Products`, `Collection(Edm.String)`. A plain value, not a node: it has no
// children and its position is that of the cast/isof call's type argument.

export interface TypeReference {
  /** The type name as written, qualified or not. */
  readonly name: string
  /** True for `Collection(…)`. */
  readonly collection: boolean
  readonly position: number
}
