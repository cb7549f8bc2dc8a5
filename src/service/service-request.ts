// The typed request every handler receives: what `resolve` made of (method, URL, headers, body, subject).
// A single HTTP request and an operation of a `$batch` both become one of these.
import type { SubjectModel } from '../model/model.js'
import type { QueryOptions } from '../odata/query-options.js'
import type { ResourcePath } from '../odata/resource-path.js'
import type { Flavour } from '../model/flavour.js'

export interface ServiceRequest {
  /** Upper-case HTTP method. */
  readonly method: string
  readonly path: ResourcePath
  readonly query: QueryOptions
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>
  readonly body: Buffer | undefined
  /**
   * The body already parsed, when it arrived as a JSON value (an operation of a JSON `$batch`): the same
   * value `body` parses to, so that a handler need not parse again what the intake parsed.
   */
  readonly json?: unknown
  readonly subject: SubjectModel
  readonly flavour: Flavour
  /** The absolute service root as the client addressed it, without any token (`http://host/api/v4/`). */
  readonly serviceRoot: string
  /**
   * The absolute service root for links the client follows as given (`@odata.nextLink`), in the way the
   * client logged in: with the token segment when it came to `/api/t/<token>/v4/` (docs/decisions.md, decisions taken
   * here). Absent: `serviceRoot`.
   */
  readonly linkRoot?: string
}
