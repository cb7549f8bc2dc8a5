// A described workload for `drive`, from a JSON or YAML file (flags override its top level):
//
//   root: http://127.0.0.1:8080/api/v4/      # the service root (--url)
//   headers: { Authorization: Bearer bench-token }   # (--token, --user, --header)
//   format: json                             # or multipart
//   concurrency: 4                           # batches in flight, one keep-alive connection each
//   duration: 20                             # seconds measured (or count: batches measured)
//   warmup: 3                                # seconds sent before measuring, not counted
//   rate: 50                                 # batches a second at most (absent: as fast as answered)
//   shapes:
//     - { name: create-post, kind: create, weight: 1, set: Document_GoodsReceipt, documents: 20, post: true,
//         body: { Number: "D{n}", Goods: [ { Quantity: 1, Price: 2, Amount: 2 } ] } }
//     - { name: read, kind: read, weight: 3, urls: [ "Catalog_Products?$top=20" ], operations: 10 }
//     - { name: balance, kind: virtual, weight: 1, urls: [ "AccumulationRegister_Stock/Balance()" ], operations: 2 }
//
// A create shape is a change set of `documents` creates of `body` (in strings, `{n}` becomes a serial
// number and `{uuid}` a new UUID), each followed by its Post when `post`; read and virtual shapes are
// `operations` GETs outside change sets, taking `urls` in turn.
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'

export type ShapeKind = 'create' | 'read' | 'virtual'

export interface ShapeSpec {
  readonly name: string
  readonly kind: ShapeKind
  readonly weight: number
  readonly set?: string
  readonly documents?: number
  readonly post?: boolean
  readonly body?: Record<string, unknown>
  readonly urls?: readonly string[]
  readonly operations?: number
}

export interface Workload {
  readonly root: string
  readonly headers: Readonly<Record<string, string>>
  readonly format: 'json' | 'multipart'
  readonly concurrency: number
  /** Seconds measured; with `count`, whichever ends first. */
  readonly duration?: number
  /** Batches measured. */
  readonly count?: number
  readonly warmup: number
  /** Batches a second, all shapes together; undefined sends as fast as the service answers. */
  readonly rate?: number
  readonly shapes: readonly ShapeSpec[]
}

export function readWorkloadFile(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8')
  return (/\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text)) as Record<string, unknown>
}

const positive = (value: unknown, name: string): number | undefined => {
  if (value === undefined || value === null) return undefined
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`workload: ${name} must be a number ≥ 0 (got ${JSON.stringify(value)})`)
  return n
}

/** Checks a workload document and fills the defaults. */
export function workloadFrom(document: Record<string, unknown>): Workload {
  const root = document.root
  if (typeof root !== 'string') throw new Error('workload: root (the service root, or --url) is missing')
  const shapes = document.shapes
  if (!Array.isArray(shapes) || shapes.length === 0) throw new Error('workload: shapes lists at least one batch shape')
  const format = document.format ?? 'json'
  if (format !== 'json' && format !== 'multipart') throw new Error(`workload: format is json or multipart (got ${String(format)})`)
  const duration = positive(document.duration, 'duration')
  const count = positive(document.count, 'count')
  const names = new Set<string>()
  const checked = shapes.map((raw: Record<string, unknown>, i): ShapeSpec => {
    const name = typeof raw.name === 'string' ? raw.name : `shape${i + 1}`
    if (names.has(name)) throw new Error(`workload: two shapes are named ${name}`)
    names.add(name)
    const kind = raw.kind
    if (kind !== 'create' && kind !== 'read' && kind !== 'virtual')
      throw new Error(`workload: shapes[${i}].kind is create, read or virtual`)
    if (kind === 'create' && typeof raw.set !== 'string') throw new Error(`workload: shapes[${i}] (create) needs set`)
    if (kind !== 'create' && (!Array.isArray(raw.urls) || raw.urls.length === 0))
      throw new Error(`workload: shapes[${i}] (${kind}) needs urls`)
    return {
      name,
      kind,
      weight: positive(raw.weight, `shapes[${i}].weight`) ?? 1,
      set: raw.set as string | undefined,
      documents: positive(raw.documents, `shapes[${i}].documents`) ?? 10,
      post: raw.post === true,
      body: (raw.body as Record<string, unknown>) ?? {},
      urls: raw.urls as string[] | undefined,
      operations: positive(raw.operations, `shapes[${i}].operations`) ?? (raw.urls as unknown[] | undefined)?.length ?? 1,
    }
  })
  if (checked.every((s) => s.weight === 0)) throw new Error('workload: every shape has weight 0')
  return {
    root,
    headers: (document.headers as Record<string, string>) ?? {},
    format,
    concurrency: positive(document.concurrency, 'concurrency') ?? 4,
    duration: duration ?? (count === undefined ? 10 : undefined),
    count,
    warmup: positive(document.warmup, 'warmup') ?? 0,
    rate: positive(document.rate, 'rate'),
    shapes: checked,
  }
}
