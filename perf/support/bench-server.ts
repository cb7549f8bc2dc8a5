// The service as the benchmarks run it, in a child process of its own: the demo configuration, whose
// `bench` subject (token `bench-token`) has a profile without rate rules, so a benchmark measures the
// pipeline rather than the demo's 6,000-operations-a-minute rule.
// Over IPC it answers 'cpu' with its process.cpuUsage() (the service's CPU time per operation) and exits
// on 'exit', so that a `--cpu-prof` run (BENCH_CPU_PROF, test/support/service-child.ts) writes its profile.
// HTTP_PIPELINING=serialize puts the request-serialising front before uWS, as the service's own setting does.
// BENCH_CHANGE_RECORD=off runs it without the change record's notes, to measure what they cost.
// Usage: node build/perf/support/bench-server.js PORT
import { buildModel } from '../../src/model/build-model.js'
import { loadConfigurationFile } from '../../src/model/configuration.js'
import { startListener } from '../../src/pipelining/start-listener.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { setChangeRecording } from '../../src/store/change-record.js'
import { createPool } from '../../src/store/pool.js'
import { benchAddress } from './bench-database.js'

const port = Number(process.argv[2])
// Without the change record's notes: what they cost is this server against one with them (batch-creates).
if (process.env.BENCH_CHANGE_RECORD === 'off') setChangeRecording(false)
const model = buildModel(loadConfigurationFile('config/demo.json'))
const pipelining = process.env.HTTP_PIPELINING === 'serialize' ? 'serialize' : 'uws'
await startListener(createServiceContext(model, createPool(benchAddress()), process.env), { host: '127.0.0.1', port, pipelining })
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() })
  if (message === 'exit') process.exit(0)
})
process.send?.('ready')
