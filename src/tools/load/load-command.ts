// `odata-registers load`: the command line of the bulk loader (docs/client-tools.md, "Loading data").
//
//   odata-registers load receipts.ndjson --set Document_GoodsReceipt --post --url http://127.0.0.1:8080/api/v4/ --token bench-token
//   odata-registers load --mapping load.json --url … --token …
//
// Prints one JSON line with the summary on stdout; exits 0 when every row has its outcome (rejected
// rows included: they are in the reject file), 2 when an input cannot be read (missing, a directory,
// unreadable: nothing is sent) or the service stayed away past --retry-for (run the same command again
// to resume), 1 when an input cannot be read on past some place (the summary says where) or on any
// other error.
import { readArguments, SERVICE_VALUES, serviceConnection } from '../shared/command-arguments.js'
import { LOAD_USAGE } from './load-usage.js'
import { GaveUpError } from './batch-sender.js'
import { keyList, readMappingFile, type FilePlan } from './load-plan.js'
import { DEFAULT_LIMITS } from './input-limits.js'
import { formatOf } from './input-rows.js'
import { checkReadable, checkWritable, InputError } from './input-source.js'
import { summaryText } from './load-summary.js'
import { runLoad } from './run-load.js'

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
      'key',
      'max-record-bytes',
      'max-field-bytes',
    ],
    flags: ['post', 'json'],
  })
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
      ...serviceConnection(a),
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
    if (summary.gaveUp) {
      console.error(`odata-registers load: ${summary.gaveUp}`)
      return 2
    }
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
