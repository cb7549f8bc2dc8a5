// `odata-registers export`: the command line of the exporter (README, "Exporting data";
// docs/export.md).
//
//   odata-registers export --set AccumulationRegister_Stock_RecordType --output stock.ndjson --url … --token …
//   odata-registers export --set Catalog_Products --changes --output products-changes.csv
//   odata-registers export --mapping load.json --url … --token …        (the loader's mapping file, read the other way)
//
// Prints one JSON line with the summary on stdout (stderr when the rows go to stdout); exits 0 when the
// export is complete, 2 when the service stayed away past --retry-for (run the same command again to
// resume), 1 on any other error.
import { ServiceClient } from '../shared/service-client.js'
import { readArguments, SERVICE_VALUES, serviceConnection } from '../shared/command-arguments.js'
import { EXPORT_USAGE } from './export-usage.js'
import { exportTargetsOf, formatOfOutput, resourcePath, type ExportTarget } from './export-plan.js'
import { ExportGaveUp, runExport } from './run-export.js'

export async function exportCommand(args: readonly string[]): Promise<number> {
  const a = readArguments(args, {
    values: [
      ...SERVICE_VALUES,
      'set',
      'filter',
      'select',
      'output',
      'format',
      'mapping',
      'page-size',
      'checkpoint',
      'interval',
      'retry-for',
    ],
    flags: ['changes', 'follow'],
  })
  if (a.positional.length > 0) throw new Error(`unexpected argument ${a.positional[0]}\n${EXPORT_USAGE}`)
  const targets: ExportTarget[] = []
  const mapping = a.value('mapping')
  if (mapping) targets.push(...exportTargetsOf(mapping, a.value('format')))
  const set = a.value('set')
  if (set) {
    const output = a.value('output') ?? '-'
    targets.push({
      resource: resourcePath(set, '--set'),
      path: output,
      format: formatOfOutput(output, a.value('format')),
      columns: {},
      ...(a.value('filter') === undefined ? {} : { filter: a.value('filter') }),
      ...(a.value('select') === undefined ? {} : { select: a.value('select') }),
    })
  }
  if (targets.length === 0) throw new Error(`nothing to export: give --set or --mapping\n${EXPORT_USAGE}`)
  const follow = a.flag('follow')
  if (follow && !a.flag('changes')) throw new Error('--follow polls for changes: give --changes with it')
  if (follow && targets.length > 1) throw new Error('--follow follows one set: give one --set')
  if (follow && targets.some((target) => target.format === 'parquet'))
    throw new Error('--follow appends to its output, and a Parquet file cannot be appended to: use ndjson or csv, or --changes alone')
  if (targets.length > 1 && a.value('checkpoint'))
    throw new Error('--checkpoint names one file: with a mapping file each output has its own')
  const client = new ServiceClient({ ...serviceConnection(a), connections: 2 })
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    for (const target of targets) {
      const checkpointPath =
        a.value('checkpoint') ?? `${target.path === '-' ? target.resource.replace(/[^\w.-]+/g, '_') : target.path}.checkpoint`
      const summary = await runExport({
        client,
        target,
        checkpointPath,
        changes: a.flag('changes'),
        follow,
        intervalSeconds: a.number('interval', 10),
        pageSize: a.number('page-size', 20_000),
        retryForSeconds: a.number('retry-for', 120),
        terminal: Boolean(process.stderr.isTTY),
        stop: stop.signal,
      }).catch((error: unknown) => {
        throw fileFailure(error, target.path, checkpointPath) ?? error
      })
      const line = JSON.stringify({ event: 'summary', resource: target.resource, output: target.path, ...summary })
      if (target.path === '-') console.error(line)
      else console.log(line)
    }
    return 0
  } catch (error) {
    if (error instanceof ExportGaveUp) {
      console.error(error.message)
      return 2
    }
    throw error
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await client.close()
  }
}

/**
 * A file the export cannot write (a full disk, a folder that is not there, no permission): the message names
 * the output and its checkpoint and says what to do: the checkpoint only moves past rows the file holds
 * (docs/export.md), so running the same command again resumes.
 */
function fileFailure(error: unknown, output: string, checkpoint: string): Error | undefined {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown }
  // To standard output the failure is the reader's (a closed pipe): the driver's message says it.
  if (typeof code !== 'string' || typeof syscall !== 'string' || output === '-') return undefined
  return new Error(
    `odata-registers export: cannot write ${output} (or its checkpoint ${checkpoint}): ${(error as Error).message}. ` +
      'Make room or fix the path, then run the same command again: it resumes from the checkpoint (Parquet, which keeps none, starts again).',
  )
}
