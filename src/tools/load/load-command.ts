// `odata-registers load`: the command line of the bulk loader (README, "Loading data").
//
//   odata-registers load receipts.ndjson --set Document_GoodsReceipt --post --url http://127.0.0.1:8080/api/v4/ --token bench-token
//   odata-registers load --mapping load.json --url … --token …
//
// Prints one JSON line with the summary on stdout; exits 0 when every row has its outcome (rejected
// rows included: they are in the reject file), 2 when the service stayed away past --retry-for (run the
// same command again to resume), 1 on any other error.
import { readArguments, SERVICE_VALUES, serviceConnection } from '../shared/command-arguments.js'
import { GaveUpError } from './batch-sender.js'
import { readMappingFile, type FilePlan } from './load-plan.js'
import { runLoad } from './run-load.js'

export const LOAD_USAGE = `odata-registers load [FILE…] [--mapping FILE] --url ROOT [--token T | --user NAME:PASSWORD] [--header 'N: v']
  --set SET              entity set of the FILEs (Catalog_…, Document_…, InformationRegister_…)
  --map column=Property  rename a column (repeatable; Goods/column=Property for table part rows)
  --const Property=value a value for every row (repeatable)
  --lines FILE --join COLUMN [--table-part NAME]   documents from a header CSV and a lines CSV
  --post                 post each document in the change set that creates it
  --format json|multipart          $batch format (json)
  --input-format csv|ndjson        for stdin (-) or other file names
  --concurrency N        change sets in flight (4)
  --rows-per-change-set N          fewer rows per change set than the service's limit allows
  --checkpoint FILE      (the first input + .checkpoint)   --rejects FILE (the first input + .rejects.ndjson)
  --retry-for SECONDS    how long to wait for a service that does not answer (120)`

export async function loadCommand(args: readonly string[]): Promise<number> {
  const a = readArguments(args, {
    values: [
      ...SERVICE_VALUES,
      'mapping',
      'set',
      'map',
      'const',
      'lines',
      'join',
      'table-part',
      'format',
      'input-format',
      'concurrency',
      'rows-per-change-set',
      'checkpoint',
      'rejects',
      'retry-for',
    ],
    flags: ['post', 'help'],
  })
  if (a.flag('help')) {
    console.log(LOAD_USAGE)
    return 0
  }
  const files: FilePlan[] = []
  const mapping = a.value('mapping')
  if (mapping) files.push(...readMappingFile(mapping))
  const pairs = (name: string) =>
    Object.fromEntries(
      a.values(name).map((pair) => {
        const eq = pair.indexOf('=')
        if (eq <= 0) throw new Error(`--${name} takes name=value (got ${pair})`)
        return [pair.slice(0, eq), pair.slice(eq + 1)]
      }),
    )
  for (const path of a.positional) {
    const set = a.value('set')
    if (!set) throw new Error(`${path}: --set names the entity set to load it into`)
    files.push({
      path,
      set,
      format: a.value('input-format'),
      lines: a.value('lines'),
      join: a.value('join'),
      tablePart: a.value('table-part'),
      columns: pairs('map'),
      constants: pairs('const'),
      post: a.flag('post'),
    })
  }
  if (files.length === 0) throw new Error(`nothing to load\n${LOAD_USAGE}`)
  const format = a.value('format') ?? 'json'
  if (format !== 'json' && format !== 'multipart') throw new Error(`--format must be json or multipart (got ${format})`)
  const first = mapping ?? (files[0]!.path === '-' ? 'stdin' : files[0]!.path)
  try {
    const summary = await runLoad({
      ...serviceConnection(a),
      files,
      format,
      concurrency: a.number('concurrency', 4),
      maxRowsPerChangeSet: a.value('rows-per-change-set') ? a.number('rows-per-change-set', 1) : undefined,
      checkpointPath: a.value('checkpoint') ?? `${first}.checkpoint`,
      rejectPath: a.value('rejects') ?? `${first}.rejects.ndjson`,
      retryForSeconds: a.number('retry-for', 120),
      terminal: Boolean(process.stderr.isTTY),
    })
    console.log(JSON.stringify({ event: 'summary', ...summary }))
    if (process.stderr.isTTY) {
      console.error(
        `loaded ${summary.loaded}, already present ${summary.present}, rejected ${summary.rejected}, resumed past ${summary.resumed} (${Math.round(summary.rowsPerSecond)} rows/s)`,
      )
    }
    return 0
  } catch (error) {
    if (error instanceof GaveUpError) {
      console.error(error.message)
      return 2
    }
    throw error
  }
}
