// `odata-registers load`: the command line of the bulk loader (README, "Loading data").
//
//   odata-registers load receipts.ndjson --set Document_GoodsReceipt --post --url http://127.0.0.1:8080/api/v4/ --token bench-token
//   odata-registers load --mapping load.json --url … --token …
//
// Prints one JSON line with the summary on stdout; exits 0 when every row has its outcome (rejected
// rows included: they are in the reject file), 2 when an input cannot be read (missing, a directory,
// unreadable: nothing is sent) or the service stayed away past --retry-for (run the same command again
// to resume), 1 when an input cannot be read on past some place (the summary says where) or on any
// other error.
import { authorizationFrom } from '../shared/service-client.js'
import { headersFrom, readArguments } from '../shared/command-arguments.js'
import { GaveUpError } from './batch-sender.js'
import { keyList, readMappingFile, type FilePlan } from './load-plan.js'
import { DEFAULT_LIMITS } from './input-limits.js'
import { formatOf } from './input-rows.js'
import { checkReadable, checkWritable, InputError } from './input-source.js'
import { summaryText } from './load-summary.js'
import { runLoad } from './run-load.js'

export const LOAD_USAGE = `odata-registers load [FILE…] [--mapping FILE] --url ROOT [--token T | --user NAME:PASSWORD] [--header 'N: v']
  --set SET              entity set of the FILEs (Catalog_…, Document_…, InformationRegister_…)
  --map column=Property  rename a column (repeatable; Goods/column=Property for table part rows)
  --const Property=value a value for every row (repeatable)
  --lines FILE --join COLUMN [--table-part NAME]   documents from a header CSV and a lines CSV
  --post                 post each document in the change set that creates it
  --key COLUMNS          what names an object, comma-separated (default: Code for catalogs, Number and Date for documents)
  --format json|multipart          $batch format (json)
  --input-format csv|ndjson        for stdin (-) or other file names
  --concurrency N        change sets in flight (4)
  --rows-per-change-set N          fewer rows per change set than the service's limit allows
  --checkpoint FILE      (the first input + .checkpoint)   --rejects FILE (the first input + .rejects.ndjson)
  --json                 the summary as a JSON line on a terminal too (it is one when stdout is not a terminal)
  --retry-for SECONDS    how long to wait for a service that does not answer (120)
  --max-record-bytes N   the longest line or record read; a longer one is a reject (4194304)
  --max-field-bytes N    the longest field; a longer one makes its row a reject (1048576)`

export async function loadCommand(args: readonly string[]): Promise<number> {
  const a = readArguments(args, {
    values: [
      'url',
      'token',
      'user',
      'header',
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
      'key',
      'max-record-bytes',
      'max-field-bytes',
    ],
    flags: ['post', 'help', 'json'],
  })
  if (a.flag('help')) {
    console.log(LOAD_USAGE)
    return 0
  }
  const files: FilePlan[] = []
  const mapping = a.value('mapping')
  if (mapping) {
    try {
      checkReadable(mapping, 'the mapping file')
    } catch (error) {
      console.error(`odata-registers load: ${(error as Error).message}`)
      return 2
    }
    files.push(...readMappingFile(mapping))
  }
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
      key: keyList(a.value('key'), '--key'),
    })
  }
  if (files.length === 0) throw new Error(`nothing to load\n${LOAD_USAGE}`)
  const format = a.value('format') ?? 'json'
  if (format !== 'json' && format !== 'multipart') throw new Error(`--format must be json or multipart (got ${format})`)
  const first = mapping ?? (files[0]!.path === '-' ? 'stdin' : files[0]!.path)
  const checkpointPath = a.value('checkpoint') ?? `${first}.checkpoint`
  const rejectPath = a.value('rejects') ?? `${first}.rejects.ndjson`
  const inputLimits = {
    maxRecordBytes: a.number('max-record-bytes', DEFAULT_LIMITS.maxRecordBytes),
    maxFieldBytes: a.number('max-field-bytes', DEFAULT_LIMITS.maxFieldBytes),
  }
  // Every input is looked at before anything is sent: one that cannot be read is an error of the command.
  try {
    for (const plan of files) {
      checkReadable(plan.path, 'the input')
      if (plan.lines === '-')
        throw new InputError('the lines file must be a file, not stdin (-): it is read twice, indexed and then read back')
      if (plan.lines) checkReadable(plan.lines, 'the lines file')
      if (!plan.lines) formatOf(plan.path, plan.format)
    }
    if (files.filter((f) => f.path === '-' || f.lines === '-').length > 1) throw new InputError('stdin (-) can be read once: name it once')
    checkWritable(checkpointPath, 'the checkpoint')
    checkWritable(rejectPath, 'the reject file')
  } catch (error) {
    console.error(`odata-registers load: ${(error as Error).message}`)
    return 2
  }
  try {
    const summary = await runLoad({
      root: a.value('url') ?? process.env.ODATA_URL ?? 'http://127.0.0.1:8080/api/v4/',
      authorization: authorizationFrom({ token: a.value('token'), user: a.value('user') }),
      headers: headersFrom(a.values('header')),
      files,
      format,
      concurrency: a.number('concurrency', 4),
      maxRowsPerChangeSet: a.value('rows-per-change-set') ? a.number('rows-per-change-set', 1) : undefined,
      checkpointPath,
      rejectPath,
      inputLimits,
      retryForSeconds: a.number('retry-for', 120),
      terminal: Boolean(process.stderr.isTTY),
    })
    // A person at a terminal reads text; a pipeline (or --json) reads the JSON line.
    if (process.stdout.isTTY && !a.flag('json')) console.log(summaryText(summary))
    else console.log(JSON.stringify({ event: 'summary', ...summary }))
    if (summary.stopped) {
      console.error(`odata-registers load stopped: ${summary.stopped}`)
      return 1
    }
    return 0
  } catch (error) {
    if (error instanceof GaveUpError || error instanceof InputError) {
      console.error(`odata-registers load: ${error.message}`)
      return 2
    }
    throw error
  }
}
