// The seed generator: deterministic demo data of the size `scale` asks for (demo-configuration.md,
// "Seed data"), driven by the configuration's `seed` section and the model. Documents are posted by
// the same posting plan `Post` uses, written with multi-row INSERTs, and the totals are rebuilt from
// the movements at the end. Idempotent: a marker row remembers the scale that was seeded.
//
// Resumable: a large scale takes most of an hour, so its progress is recorded (`seed_progress` in
// `_service_state`: the stage, and how many documents are written) after the catalogs, every
// CHECKPOINT_DOCUMENTS documents, and after each later stage, each time once every row before it is
// written. A seed run again after an interruption makes the same rows again from the start (the generator
// is deterministic, and later documents depend on the stock of earlier ones), drops those recorded as
// written, and sends those that may have been written after the last record with INSERT IGNORE
// (src/store/bulk-writer.ts). The totals rebuild resumes on its own (src/store/totals-rebuild.ts).
import type { AttributeConfig, SeedConfig } from '../model/configuration.js'
import type { EntitySetModel, PropertyModel, ServiceModel } from '../model/model.js'
import { EMPTY_GUID } from '../model/model.js'
import { accountRefKey } from '../model/account-key.js'
import { computeMovements, defaultValue, postingPlan, type EntityValues } from '../posting/posting-plan.js'
import { BulkWriter } from '../store/bulk-writer.js'
import { id, sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'
import { recomputeTotals } from '../store/totals-rebuild.js'
import { Random, ZipfSampler } from './random.js'
import { StockLedger } from './stock-ledger.js'

export const SEED_MARKER = 'seed'
/** Bumped when the generator changes what it makes, so an old seed is recognised as different. */
const GENERATOR_VERSION = 2
/** Draws of a table-part row before it is left out, and of a document before it is made with no rows (stock-ledger.ts). */
const ROW_ATTEMPTS = 10
const DOCUMENT_ATTEMPTS = 5

export interface SeedProgress {
  start(total: number, label: string): void
  advance(by: number): void
  stop(): void
  /** Told when every row of the first `documents` documents is written, before that is recorded. */
  written?(documents: number): void
}

/** The `_service_state` entry of a seed under way. */
export const SEED_PROGRESS_MARKER = 'seed_progress'
/** Documents between two records of a seed's progress. */
export const CHECKPOINT_DOCUMENTS = 20_000

type SeedStage = 'documents' | 'daily records' | 'totals'

interface SeedProgressRecord {
  readonly scale: number
  readonly version: number
  readonly stage: SeedStage
  readonly documentsDone: number
}

export const SILENT_PROGRESS: SeedProgress = { start() {}, advance() {}, stop() {} }

export interface SeedResult {
  readonly seeded: boolean
  readonly documents: number
  readonly rows: number
  readonly message: string
}

const DAY_MS = 86_400_000
const pad = (n: number, width = 2) => String(n).padStart(width, '0')
function storedDateTime(millis: number): string {
  const d = new Date(millis)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
}

function scaledCount(count: number, growth: 'none' | 'sqrt' | 'linear' | undefined, scale: number): number {
  if (growth === 'sqrt') return Math.max(1, Math.round(count * Math.sqrt(scale)))
  if (growth === 'linear') return Math.max(1, Math.round(count * scale))
  return count
}

/** A code of `length` characters at most, numbered: `00000000042`. */
function numbered(n: number, length: number): string {
  const text = String(n)
  return text.length >= length ? text.slice(-length) : text.padStart(length, '0')
}

export async function readSeedMarker(pool: Pool): Promise<{ scale: number; version: number } | undefined> {
  const [row] = await databaseOf(pool).rows<{ value: string }>(
    sql`SELECT \`value\` FROM \`_service_state\` WHERE \`name\` = ${SEED_MARKER}`,
  )
  return row ? (JSON.parse(row.value) as { scale: number; version: number }) : undefined
}

interface CatalogItems {
  readonly keys: string[]
}

class SeedGenerator {
  private readonly random: Random
  private readonly seed: SeedConfig
  private readonly catalogs = new Map<string, CatalogItems>()
  private readonly samplers = new Map<string, ZipfSampler>()
  private readonly stock: StockLedger
  rows = 0

  constructor(
    private readonly model: ServiceModel,
    private readonly writer: BulkWriter,
    private readonly scale: number,
    private readonly progress: SeedProgress,
    /** Writes every buffered row and records that the first `documents` documents are written. */
    private readonly checkpoint: (documents: number) => Promise<void>,
  ) {
    this.random = new Random(20240101 + scale)
    this.seed = model.configuration.seed ?? {}
    this.stock = new StockLedger(model)
  }

  private set(name: string): EntitySetModel {
    return this.model.entitySetByName.get(name)!
  }

  private async insert(set: EntitySetModel | string, columns: readonly string[], row: unknown[]): Promise<void> {
    this.rows++
    await this.writer.add(typeof set === 'string' ? set : set.table, columns, row)
  }

  /** A value for an attribute of no special meaning, by type. */
  private attributeValue(property: PropertyModel, label: string): unknown {
    if (property.reference) return this.referenceValue(property.reference.targetSet)
    const storage = property.storage
    switch (storage.kind) {
      case 'string':
        return storage.length === undefined ? '' : `${label}-${this.random.int(1, 99999)}`.slice(0, storage.length)
      case 'decimal':
        return (this.random.int(0, 10 ** Math.min(6, storage.precision - storage.scale) - 1) + this.random.int(0, 99) / 100).toFixed(
          storage.scale,
        )
      case 'boolean':
        return this.random.int(0, 1)
      default:
        return defaultValue(storage)
    }
  }

  private referenceValue(targetSet: string): string {
    const items = this.catalogs.get(targetSet)
    if (!items || items.keys.length === 0) return EMPTY_GUID
    const sampler = this.samplers.get(targetSet)
    return items.keys[sampler ? sampler.sample(this.random) : this.random.int(0, items.keys.length - 1)]!
  }

  async catalogsAndCharts(): Promise<void> {
    for (const catalog of this.model.configuration.catalogs) {
      const set = this.set(`Catalog_${catalog.name}`)
      const spec = this.seed.catalogs?.[catalog.name]
      const count = spec ? scaledCount(spec.count, spec.growth, this.scale) : 0
      const keys: string[] = []
      const columns = set.properties.map((p) => p.column)
      for (let n = 1; n <= count; n++) {
        const key = this.random.guid()
        keys.push(key)
        const row = set.properties.map((p) => {
          switch (p.name) {
            case 'Ref_Key':
              return key
            case 'DataVersion':
              return '1'
            case 'DeletionMark':
              return 0
            case 'Code':
              return numbered(n, catalog.codeLength)
            case 'Description':
              return `${catalog.name} ${n}`.slice(0, catalog.descriptionLength)
            default:
              return this.attributeValue(p, p.name.slice(0, 3).toUpperCase())
          }
        })
        await this.insert(set, columns, row)
      }
      this.catalogs.set(set.name, { keys })
      if ((this.seed.skewed ?? []).includes(`Catalog.${catalog.name}`)) this.samplers.set(set.name, new ZipfSampler(keys.length, 1.0))
    }
    for (const chart of this.model.configuration.chartsOfAccounts ?? []) {
      const set = this.set(`ChartOfAccounts_${chart.name}`)
      const lines = this.set(`ChartOfAccounts_${chart.name}_ExtDimensionTypes`)
      for (const account of chart.accounts) {
        const key = accountRefKey(chart.name, account.code)
        await this.insert(
          set,
          ['Ref_Key', 'DataVersion', 'DeletionMark', 'Code', 'Description', 'AccountType'],
          [key, '1', 0, account.code, account.description.slice(0, chart.descriptionLength), account.type],
        )
        for (const [i, kind] of (account.extDimensions ?? []).entries())
          await this.insert(lines, ['Ref_Key', 'LineNumber', 'ExtDimensionType'], [key, i + 1, kind])
      }
    }
  }

  /** Makes the documents; those before `resumeFrom` were written by an earlier run and are made, not written. */
  async documents(resumeFrom = 0, every = CHECKPOINT_DOCUMENTS): Promise<number> {
    const mix = (this.seed.documentMix ?? []).filter((m) => m.share > 0 && this.model.entitySetByName.has(`Document_${m.document}`))
    const total = (this.seed.documentsPerScale ?? 0) * this.scale
    if (mix.length === 0 || total === 0) return 0
    const shareSum = mix.reduce((sum, m) => sum + m.share, 0)
    const start = Date.parse(this.seed.startDate ?? '2024-01-01T00:00:00Z')
    const spanMs = (this.seed.days ?? 730) * DAY_MS
    const { min, max } = this.seed.tableRows ?? { min: 1, max: 20 }
    const numbers = new Map<string, number>()
    const plans = new Map(mix.map((m) => [m.document, postingPlan(this.model, this.set(`Document_${m.document}`))] as const))
    // The first documents are all of the first kind (receipts in the demo), so goods arrive before they are sold.
    const warmUp = Math.ceil(total * 0.05)
    this.progress.start(total, 'documents')
    for (let n = 0; n < total; n++) {
      if (n === resumeFrom) this.writer.skipping = false
      if (n > resumeFrom && n % every === 0) await this.checkpoint(n)
      let pick = this.random.next() * shareSum
      let choice = mix[0]!
      if (n >= warmUp) {
        for (const m of mix) {
          if (pick < m.share) {
            choice = m
            break
          }
          pick -= m.share
        }
      }
      const set = this.set(`Document_${choice.document}`)
      const number = (numbers.get(choice.document) ?? 0) + 1
      numbers.set(choice.document, number)
      // Dates grow with n: spread evenly over the span, seconds apart within a day.
      const date = storedDateTime(start + Math.floor(((n / total) * spanMs) / 1000) * 1000)
      await this.document(set, choice.document, number, date, min, max, plans.get(choice.document)!)
      if (n % 1000 === 999) this.progress.advance(1000)
    }
    this.progress.advance(total % 1000)
    this.progress.stop()
    return total
  }

  private async document(
    set: EntitySetModel,
    name: string,
    number: number,
    date: string,
    minRows: number,
    maxRows: number,
    plan: ReturnType<typeof postingPlan>,
  ): Promise<void> {
    const source = set.source
    if (source.type !== 'document') return
    // A document whose rows the balances could not serve at all (a sale from an empty warehouse) is drawn
    // again, a few times, before it is made with no rows.
    let values: Record<string, unknown> = {}
    let tableParts: Record<string, EntityValues[]> = {}
    for (let attempt = 0; attempt < DOCUMENT_ATTEMPTS; attempt++) {
      values = this.documentValues(set, name, number, date)
      tableParts = {}
      let rowCount = 0
      for (const tablePartName of source.tableParts) {
        const rows = this.tablePartRows(
          plan,
          values,
          this.set(`${set.name}_${tablePartName}`),
          tablePartName,
          this.random.int(minRows, maxRows),
        )
        tableParts[tablePartName] = rows
        rowCount += rows.length
      }
      if (rowCount > 0 || source.tableParts.length === 0) break
    }
    this.stock.book(plan, values, undefined)
    await this.insert(
      set,
      set.properties.map((p) => p.column),
      set.properties.map((p) => values[p.name]),
    )
    for (const [tablePartName, rows] of Object.entries(tableParts)) {
      const rowSet = this.set(`${set.name}_${tablePartName}`)
      for (const row of rows)
        await this.insert(
          rowSet,
          rowSet.properties.map((p) => p.column),
          rowSet.properties.map((p) => row[p.name]),
        )
    }
    for (const movements of computeMovements(plan, { document: values, tableParts })) {
      const columns = movements.columns.map((c) => c.column)
      for (const row of movements.rows) await this.insert(movements.recordTypeSet, columns, row)
    }
  }

  private documentValues(set: EntitySetModel, name: string, number: number, date: string): Record<string, unknown> {
    const values: Record<string, unknown> = {}
    for (const p of set.properties) {
      switch (p.name) {
        case 'Ref_Key':
          values[p.name] = this.random.guid()
          break
        case 'DataVersion':
          values[p.name] = '1'
          break
        case 'Number':
          values[p.name] = numbered(number, (p.storage as { length: number }).length)
          break
        case 'Date':
          values[p.name] = date
          break
        case 'Posted':
          values[p.name] = 1
          break
        case 'DeletionMark':
          values[p.name] = 0
          break
        default:
          values[p.name] = p.storage.kind === 'string' && p.storage.length === undefined ? '' : this.attributeValue(p, name.slice(0, 3))
      }
    }
    return values
  }

  /**
   * Up to `count` rows of a table part, each booked in the stock ledger as it is accepted: a row that
   * would take out more than the balances hold takes what they hold (its quantity scaled down), and one
   * that finds nothing is drawn again (another product), a few times, before it is left out.
   */
  private tablePartRows(
    plan: ReturnType<typeof postingPlan>,
    document: EntityValues,
    rowSet: EntitySetModel,
    tablePartName: string,
    count: number,
  ): EntityValues[] {
    const rows: EntityValues[] = []
    for (let line = 1; line <= count; line++) {
      for (let attempt = 0; attempt < ROW_ATTEMPTS; attempt++) {
        const row: Record<string, unknown> = {}
        for (const p of rowSet.properties) {
          if (p.name === 'Ref_Key') row[p.name] = document.Ref_Key
          else if (p.name === 'LineNumber') row[p.name] = rows.length + 1
          else row[p.name] = this.attributeValue(p, tablePartName.slice(0, 3))
        }
        this.fillAmounts(row)
        const share = this.stock.available(plan, document, tablePartName, row)
        if (share < 1) {
          if (!('Quantity' in row)) continue
          // The balances are sums of doubles, the stored values exact decimals: a share that falls a hair short
          // of a whole quantity (4.9999999999 for 5) is that quantity. Quantities have three decimals and
          // amounts two, so no true figure lies that close below a whole number without being it.
          const quantity = Math.floor(Number(row.Quantity) * share + 1e-7)
          if (quantity < 1) continue
          row.Quantity = quantity.toFixed(3)
          this.fillAmounts(row, false)
        }
        this.stock.book(plan, document, tablePartName, row)
        rows.push(row)
        break
      }
    }
    return rows
  }

  /** Quantities of 1–100 and Amount = Quantity × Price, so the data reads like business data; `draw` false keeps quantity and price. */
  private fillAmounts(row: Record<string, unknown>, draw = true): void {
    if ('Quantity' in row && draw) row.Quantity = this.random.int(1, 100).toFixed(3)
    if ('Price' in row && draw) row.Price = (this.random.int(100, 100000) / 100).toFixed(2)
    if ('Amount' in row && 'Quantity' in row && 'Price' in row) row.Amount = (Number(row.Quantity) * Number(row.Price)).toFixed(2)
  }

  async dailyRecords(): Promise<void> {
    const start = Date.parse(this.seed.startDate ?? '2024-01-01T00:00:00Z')
    const days = this.seed.days ?? 730
    for (const spec of this.seed.dailyRecords ?? []) {
      const set = this.model.entitySetByName.get(`InformationRegister_${spec.register}`)
      if (set?.source.type !== 'informationRegister') continue
      // Every combination of the dimension values the spec names, for every day.
      let combinations: Record<string, unknown>[] = [{}]
      for (const dimensionName of set.source.dimensions) {
        const property = set.propertyByName.get(dimensionName)!
        const attribute = dimensionName.replace(/_Key$/, '')
        const dimensionSpec = spec.dimensions[attribute] ?? spec.dimensions[dimensionName] ?? {}
        let values: unknown[]
        if (dimensionSpec.values) values = dimensionSpec.values
        else if (property.reference) {
          const keys = this.catalogs.get(property.reference.targetSet)?.keys ?? []
          values = keys.slice(0, Math.max(1, Math.round(keys.length * (dimensionSpec.share ?? 1))))
        } else values = [defaultValue(property.storage)]
        combinations = combinations.flatMap((c) => values.map((v) => ({ ...c, [dimensionName]: v })))
      }
      const columns = set.properties.map((p) => p.column)
      const base = new Map<Record<string, unknown>, number>(combinations.map((c) => [c, this.random.int(1000, 100000) / 100]))
      for (let day = 0; day < days; day++) {
        const period = storedDateTime(start + day * DAY_MS)
        for (const combination of combinations) {
          // A slow random walk, so slices and prices change from day to day.
          const value = Math.max(0.01, base.get(combination)! * (1 + (this.random.next() - 0.5) / 50))
          base.set(combination, value)
          const row = set.properties.map((p) => {
            if (p.name === 'Period') return period
            if (p.name in combination) return combination[p.name]
            if (p.role === 'resource' && p.storage.kind === 'decimal') return p.storage.scale === 0 ? '1' : value.toFixed(p.storage.scale)
            return defaultValue(p.storage)
          })
          await this.insert(set, columns, row)
        }
      }
    }
  }
}

/** Seeds the database unless it holds a seed of this scale already. */
export async function seedDemoData(
  pool: Pool,
  model: ServiceModel,
  options: { scale: number; progress?: SeedProgress; force?: boolean; checkpointDocuments?: number },
): Promise<SeedResult> {
  const existing = await readSeedMarker(pool)
  if (existing && !options.force) {
    const same = existing.scale === options.scale && existing.version === GENERATOR_VERSION
    return {
      seeded: false,
      documents: 0,
      rows: 0,
      message: same
        ? `seed data of scale ${existing.scale} is present; reusing it`
        : `the database holds seed data of scale ${existing.scale} (generator ${existing.version}); keeping it (run \`node build/src/cli.js seed --scale ${options.scale} --force\` to replace it)`,
    }
  }
  const left = existing ? undefined : await readSeedProgress(pool)
  const resumed = left !== undefined && left.scale === options.scale && left.version === GENERATOR_VERSION ? left : undefined
  if (existing || (left !== undefined && resumed === undefined)) await clearSeededTables(pool, model)
  const writer = new BulkWriter(pool)
  const record = async (stage: SeedStage, documentsDone: number) => {
    await writer.flushAll()
    progress.written?.(documentsDone)
    const value: SeedProgressRecord = { scale: options.scale, version: GENERATOR_VERSION, stage, documentsDone }
    await databaseOf(pool).run(
      sql`REPLACE INTO \`_service_state\` (\`name\`, \`value\`) VALUES (${SEED_PROGRESS_MARKER}, ${JSON.stringify(value)})`,
    )
    // Every row made so far is written and recorded: what comes next was never written.
    writer.ignoringDuplicates = false
  }
  const progress = options.progress ?? SILENT_PROGRESS
  const generator = new SeedGenerator(model, writer, options.scale, progress, (documents) => record('documents', documents))
  const stage = resumed?.stage ?? 'documents'
  // What an earlier run recorded is made again (later rows depend on it) but not written; the rows after its
  // last record may have been written: INSERT IGNORE until the next record. The catalogs are sent so even on
  // a fresh start, which may follow a run interrupted before its first record.
  writer.ignoringDuplicates = true
  writer.skipping = resumed !== undefined
  await generator.catalogsAndCharts()
  if (resumed === undefined) await record('documents', 0)
  writer.skipping = stage !== 'documents'
  const documents = await generator.documents(
    stage === 'documents' ? (resumed?.documentsDone ?? 0) : Number.POSITIVE_INFINITY,
    options.checkpointDocuments ?? CHECKPOINT_DOCUMENTS,
  )
  if (stage === 'documents') await record('daily records', documents)
  writer.skipping = stage === 'totals'
  await generator.dailyRecords()
  if (stage !== 'totals') await record('totals', documents)
  writer.skipping = false
  await recomputeTotals(pool, model)
  await databaseOf(pool).run(
    sql`REPLACE INTO \`_service_state\` (\`name\`, \`value\`) VALUES (${SEED_MARKER}, ${JSON.stringify({ scale: options.scale, version: GENERATOR_VERSION })})`,
  )
  await databaseOf(pool).run(sql`DELETE FROM \`_service_state\` WHERE \`name\` = ${SEED_PROGRESS_MARKER}`)
  return {
    seeded: true,
    documents,
    rows: generator.rows,
    message: `seeded scale ${options.scale}: ${documents} documents, ${generator.rows} rows${resumed ? ` (resumed an interrupted seed at ${resumed.stage === 'documents' ? `document ${resumed.documentsDone}` : resumed.stage})` : ''}`,
  }
}

async function readSeedProgress(pool: Pool): Promise<SeedProgressRecord | undefined> {
  const [row] = await databaseOf(pool).rows<{ value: string }>(
    sql`SELECT \`value\` FROM \`_service_state\` WHERE \`name\` = ${SEED_PROGRESS_MARKER}`,
  )
  return row ? (JSON.parse(row.value) as SeedProgressRecord) : undefined
}

async function clearSeededTables(pool: Pool, model: ServiceModel): Promise<void> {
  const tables = new Set<string>()
  for (const set of model.entitySets) tables.add(set.table)
  for (const set of model.entitySets) {
    const source = set.source
    if ((source.type === 'accumulationRegister' && source.totalsTable) || source.type === 'accountingRegister')
      tables.add(source.totalsTable!)
  }
  for (const table of tables) await databaseOf(pool).run(sql`DELETE FROM ${id(table)}`)
}

export type { AttributeConfig }
