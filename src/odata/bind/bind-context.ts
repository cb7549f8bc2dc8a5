// What binding one option needs to know besides the tree: which option it is (the target of every
// error, and its code), how to find the source of a navigation target, and the request's parameter
// aliases (`@p` in `$filter=Price gt @p&@p=5`).
import type { ErrorCode } from '../../errors.js'
import type { ExpressionLimits } from '../expression/index.js'
import type { SourceResolver } from './queryable-source.js'

export interface BindContext {
  /** `$filter`, `$orderby`, `Condition`…: the target of every error. */
  readonly option: string
  /** The code of a bind error (InvalidFilter for `$filter`; InvalidParameter for a function's Condition). */
  readonly errorCode: ErrorCode
  readonly resolve: SourceResolver
  /** The schema namespace, for qualified names in type casts (`StandardODATA.Catalog_Products`). */
  readonly namespace: string
  /**
   * The qualified names of the types `$metadata` declares (entity and complex types), for `isof`: a name
   * outside them and the Edm primitive types is an unknown type (400). Without it, any name qualified
   * by the namespace is taken as known.
   */
  readonly knownTypes?: ReadonlySet<string>
  /** The text of a parameter alias (`@p` → '5'), or undefined when the request has none by that name. */
  readonly parameterAlias?: (name: string) => string | undefined
  /** Limits for parsing alias values (those of the request's profile). */
  readonly limits?: Partial<ExpressionLimits>
}
