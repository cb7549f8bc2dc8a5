// What `odata-registers load --help` prints: apart from the bulk loader's code, so that help loads none of it.
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
