// What a load does, from a mapping file (JSON or YAML) or from the command's flags: which inputs go to
// which entity set, how their columns map to properties, whether documents are posted.
//
//   { "files": [
//       { "path": "warehouses.csv", "set": "Catalog_Warehouses", "columns": { "code": "Code", "name": "Description" } },
//       { "path": "receipts.ndjson", "set": "Document_GoodsReceipt", "post": true },
//       { "path": "sale-headers.csv", "lines": "sale-lines.csv", "join": "number", "tablePart": "Goods",
//         "set": "Document_GoodsSale", "columns": { "number": "Number" }, "post": true },
//       { "path": "prices.csv", "set": "InformationRegister_Prices", "constants": { "PriceType": "Retail" } } ] }
//
// Paths in a mapping file are relative to the file.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'

export interface FilePlan {
  readonly path: string
  readonly set: string
  readonly format?: string
  readonly lines?: string
  readonly join?: string
  readonly tablePart?: string
  readonly columns: Readonly<Record<string, string>>
  readonly constants: Readonly<Record<string, unknown>>
  readonly post: boolean
  /** Input columns or properties that name an object (`--key`; docs/loading.md, "Identity"). */
  readonly key?: readonly string[]
}

export function readMappingFile(path: string): FilePlan[] {
  const text = readFileSync(path, 'utf8')
  const document = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text)
  const files = (document as { files?: unknown }).files
  if (!Array.isArray(files) || files.length === 0) throw new Error(`${path}: a mapping file lists its inputs in "files"`)
  const base = dirname(path)
  return files.map((entry: Record<string, unknown>, i) => {
    if (typeof entry.path !== 'string' || typeof entry.set !== 'string') throw new Error(`${path}: files[${i}] needs "path" and "set"`)
    const at = (p: unknown) => (typeof p === 'string' ? (p === '-' ? p : resolve(base, p)) : undefined)
    return {
      path: at(entry.path)!,
      set: entry.set,
      format: typeof entry.format === 'string' ? entry.format : undefined,
      lines: at(entry.lines),
      join: typeof entry.join === 'string' ? entry.join : undefined,
      tablePart: typeof entry.tablePart === 'string' ? entry.tablePart : undefined,
      columns: (entry.columns as Record<string, string>) ?? {},
      constants: (entry.constants as Record<string, unknown>) ?? {},
      post: entry.post === true,
      key: keyList(entry.key, `${path}: files[${i}].key`),
    }
  })
}

/** `"Code,Owner"` or `["Code", "Owner"]` as a list of names; undefined when not given. */
export function keyList(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined
  const names = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.map(String) : undefined
  const list = names?.map((n) => n.trim()).filter((n) => n !== '')
  if (!list || list.length === 0) throw new Error(`${where} must name one or more columns (Code,Owner)`)
  return list
}
