// The streaming intake of a JSON `$batch` body (OData 4.01, service.md §2.3).
//
// Order of the answers (decisions.md §7): size, then parsing, then the operation count.
//   - push throws BatchTooLarge at the chunk that passes `maxBytes`;
//   - push throws BatchMalformed at the first corrupt byte, broken limit or ill-shaped item: for JSON
//     nothing found later could take precedence, so the answer is final at once;
//   - the operation count is known only at the end: once it passes the limit, items are still
//     checked (a corrupt one comes first) but no longer kept, and end() states the actual figure.
// Items with the same `atomicityGroup` must be adjacent (JSON Format 4.01 §19.1); they become one
// change set, the same shape a multipart change set has.

import { asBuffer } from '../as-buffer.js'
import type { BatchChangeSet, BatchDocument, BatchItem, BatchOperation } from '../batch-document.js'
import type { BatchIntake, IntakeProgress } from '../batch-intake.js'
import { GuardedJsonScanner, type JsonScannerEvents } from './guarded-json-scanner.js'
import { batchMalformed, batchTooLarge, tooManyOperations } from '../intake-errors.js'
import { type IntakeLimits, resolveIntakeLimits } from '../intake-limits.js'
import { operationFromJsonItem } from './json-request-item.js'
import { repeatedMemberName } from '../../../odata/repeated-member-name.js'
import { isAscii, isUtf8 } from 'node:buffer'
import { ODataError } from '../../../errors.js'

export interface JsonIntakeOptions {
  readonly limits?: Partial<IntakeLimits>
}

export function createJsonIntake(options: JsonIntakeOptions = {}): BatchIntake {
  return new JsonIntake(resolveIntakeLimits(options.limits))
}

interface OpenGroup {
  readonly name: string
  readonly operations: BatchOperation[]
}

class JsonIntake implements BatchIntake, JsonScannerEvents {
  readonly format = 'json' as const
  private readonly scanner: GuardedJsonScanner
  private readonly items: BatchItem[] = []
  private readonly operations: BatchOperation[] = []
  private itemCount = 0
  private bytesReceived = 0
  /** Text bytes of the items kept (the parsed values are of the same order of size). */
  private keptBytes = 0
  private retaining = true
  private openGroup: OpenGroup | undefined
  /** Names of groups already closed: one seen again is not adjacent. */
  private readonly closedGroups = new Set<string>()
  private thrown: ODataError | undefined
  private ended = false
  /** The chunk being scanned (only during `push`), and whether it is all ASCII (undefined: not asked yet). */
  private chunk: Buffer | undefined
  private chunkIsAscii: boolean | undefined

  constructor(private readonly limits: IntakeLimits) {
    this.scanner = new GuardedJsonScanner(limits, this)
  }

  get progress(): IntakeProgress {
    return {
      bytesReceived: this.bytesReceived,
      retainedBytes: this.keptBytes + this.scanner.pendingBytes,
      topLevelParts: this.itemCount,
      operations: this.itemCount,
      partsParsed: 0,
      failureCertain: this.thrown !== undefined || !this.retaining,
    }
  }

  push(chunk: Uint8Array): void {
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.push called after end()')
    this.bytesReceived += chunk.byteLength
    if (this.bytesReceived > this.limits.maxBytes) this.die(batchTooLarge(this.limits.maxBytes))
    const data = asBuffer(chunk)
    this.chunk = data
    this.chunkIsAscii = undefined
    try {
      this.scanner.scan(data)
    } catch (error) {
      this.die(error)
    } finally {
      this.chunk = undefined
    }
  }

  end(): BatchDocument {
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.end called twice')
    this.ended = true
    try {
      this.scanner.finish()
    } catch (error) {
      this.die(error)
    }
    if (!this.scanner.hasRequests) this.die(batchMalformed('The JSON batch has no member "requests".'))
    if (this.itemCount > this.limits.maxOperations) this.die(tooManyOperations(this.itemCount, this.limits.maxOperations))
    if (this.itemCount === 0) this.die(batchMalformed('The batch has no operations.'))
    this.closeGroup()
    return { format: 'json', items: this.items, operations: this.operations, byteLength: this.bytesReceived, release: () => undefined }
  }

  // JsonScannerEvents

  item(source: Buffer, start: number, end: number, memberNames: number): void {
    const index = this.itemCount++
    const where = `Request ${index + 1} of the JSON batch`
    // An item within a chunk of ASCII bytes only is ASCII: it needs no UTF-8 check, and reads as Latin-1
    // (the same characters), which decodes faster. The chunk is checked once, at its first item.
    const item =
      source === this.chunk && (this.chunkIsAscii ??= isAscii(source))
        ? parseJsonText(source.toString('latin1', start, end), where)
        : parseJson(source.subarray(start, end), where)
    // JSON.parse keeps one member per name: fewer members than the names the scanner counted (at every
    // depth: the item's and its body's) means a repeated name, which a second scan then names. Items
    // without one (all, in practice) skip it.
    if (memberCount(item) !== memberNames) {
      const repeated = repeatedMemberName(source.subarray(start, end))
      if (repeated !== undefined) throw batchMalformed(`${where} has the member "${repeated}" twice.`)
    }
    const operation = operationFromJsonItem(item, index)
    if (this.itemCount > this.limits.maxOperations) this.stopRetaining()
    this.place(operation)
    if (this.retaining) this.keptBytes += end - start
  }

  otherMember(text: Buffer): void {
    // Unknown members (annotations) are ignored, but must be valid JSON like the rest of the body.
    parseJson(text, 'A member of the JSON batch')
  }

  private place(operation: BatchOperation): void {
    const group = operation.atomicityGroup
    if (group !== undefined && group === this.openGroup?.name) {
      if (this.retaining) this.openGroup.operations.push(operation)
    } else {
      this.closeGroup()
      if (group !== undefined) {
        if (this.closedGroups.has(group)) {
          throw batchMalformed(
            `Request ${operation.index + 1} of the JSON batch: the requests of atomicity group "${group}" are not adjacent.`,
          )
        }
        this.openGroup = { name: group, operations: [] }
        if (this.retaining) this.openGroup.operations.push(operation)
      } else if (this.retaining) {
        this.items.push(operation)
      }
    }
    if (this.retaining) this.operations.push(operation)
  }

  private closeGroup(): void {
    const group = this.openGroup
    if (group === undefined) return
    this.openGroup = undefined
    this.closedGroups.add(group.name)
    if (this.retaining) {
      const changeSet: BatchChangeSet = { kind: 'changeSet', atomicityGroup: group.name, operations: group.operations }
      this.items.push(changeSet)
    }
  }

  /** decisions.md §7: past the operation limit the batch is refused; keep nothing more. */
  private stopRetaining(): void {
    if (!this.retaining) return
    this.retaining = false
    this.items.length = 0
    this.operations.length = 0
    if (this.openGroup !== undefined) this.openGroup.operations.length = 0
    this.keptBytes = 0
  }

  private die(error: unknown): never {
    // Only our own errors are a verdict on the input; anything else is a bug and must surface as one.
    if (!(error instanceof ODataError)) throw error
    this.stopRetaining()
    this.scanner.abandon()
    this.thrown = error
    throw error
  }
}

/** Own members of a parsed item (an object: the scanner refuses any other item); for…in allocates nothing. */
/** The members of every object in a parsed JSON value. */
function memberCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let count = 0
  if (Array.isArray(value)) {
    for (const element of value) count += memberCount(element)
    return count
  }
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue
    count += 1 + memberCount((value as Record<string, unknown>)[name])
  }
  return count
}

function parseJson(text: Buffer, what: string): unknown {
  // JSON text is UTF-8 (RFC 8259 §8.1): a byte sequence that is not would be read as U+FFFD and stored so.
  if (!isUtf8(text)) throw batchMalformed(`${what} is not valid UTF-8.`)
  return parseJsonText(text.toString('utf8'), what)
}

function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw batchMalformed(`${what} is not valid JSON: ${(error as Error).message}`)
  }
}
