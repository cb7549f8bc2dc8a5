// `odata-registers load`: the command line of the bulk loader (docs/client-tools.md, "Loading data").
//
//   odata-registers load receipts.ndjson --set Document_GoodsReceipt --post --url http://127.0.0.1:8080/api/v4/ --token bench-token
//   odata-registers load --mapping load.json --url … --token …
//
// Prints one JSON line with the summary on stdout; exits 0 when every row has its outcome (rejected
// rows included: they are in the reject file), 2 when the service stayed away past --retry-for (run the
// same command again to resume), 1 on any other error.
import { authorizationFrom } from '../shared/service-client.js'
import { headersFrom, readArguments } from '../shared/command-arguments.js'
import { LOAD_USAGE } from './load-usage.js'
import { GaveUpError } from './batch-sender.js'
import { readMappingFile, type FilePlan } from './load-plan.js'
import { runLoad } from './run-load.js'

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
    ],
    flags: ['post'],
  })
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
      root: a.value('url') ?? process.env.ODATA_URL ?? 'http://127.0.0.1:8080/api/v4/',
      authorization: authorizationFrom({ token: a.value('token'), user: a.value('user') }),
      headers: headersFrom(a.values('header')),
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
