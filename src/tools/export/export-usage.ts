// What `odata-registers export --help` prints: apart from the exporter's code, so that help loads none of it.
export const EXPORT_USAGE = `odata-registers export --set RESOURCE [--output FILE|-] --url ROOT [--token T | --user NAME:PASSWORD] [--header 'N: v']
  --set RESOURCE         an entity set, or a virtual-table call (AccumulationRegister_Stock/Balance(Period=2024-01-01T00:00:00Z))
  --filter EXPR          $filter of the rows       --select LIST    $select of the properties
  --output FILE          where the rows go: FILE.ndjson, FILE.csv, FILE.parquet, or - for stdout (the default)
  --format ndjson|csv|parquet   (from the output's name; ndjson for stdout)
  --mapping FILE         the loader's mapping file: each entry's set written to its path, columns named as it loads them
  --changes              write only what changed since the last run (the first run writes every row): the delta
                         link is kept in the checkpoint, removed rows carry their reason in the column _removed
  --follow               with --changes: keep polling every --interval seconds (10), appending; Ctrl-C ends it
  --page-size N          rows per page (20000)    --checkpoint FILE (the output + .checkpoint)
  --retry-for SECONDS    how long to wait for a service that does not answer (120)`
