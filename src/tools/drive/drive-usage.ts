// What `odata-registers drive --help` prints: apart from the load driver's code, so that help loads none of it.
export const DRIVE_USAGE = `odata-registers drive WORKLOAD.(json|yaml) [--url ROOT] [--token T | --user NAME:PASSWORD] [--header 'N: v']
  [--concurrency N] [--duration SECONDS | --count BATCHES] [--warmup SECONDS] [--rate BATCHES_PER_SECOND]
  [--format json|multipart] [--pid SERVER_PID] [--out PREFIX (drive-report)]
odata-registers drive --compare A.json B.json [--out PREFIX (drive-comparison)]`
