// The service as the benchmarks run it, in a child process of its own: the demo configuration plus a
// `bench` subject (token `bench-token`) whose profile has no rate rules, so a benchmark measures the
// pipeline rather than the demo's 6,000-operations-a-minute rule. Everything else is the demo's.
// Usage: node build/perf/support/bench-server.js PORT
import { buildModel } from '../../src/model/build-model.js'
import { loadConfigurationFile } from '../../src/model/configuration.js'
import { startServer } from '../../src/http/server.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { createPool } from '../../src/store/pool.js'
import { benchAddress } from './bench-database.js'

const port = Number(process.argv[2])
const configuration = loadConfigurationFile('config/demo.json')
// The demo configuration now has the same subject; added only where a configuration lacks it.
if (!configuration.profiles.some((p) => p.name === 'bench')) configuration.profiles.push({ name: 'bench', read: ['*'], write: ['*'] })
if (!configuration.subjects.some((s) => s.name === 'bench')) configuration.subjects.push({ name: 'bench', token: 'bench-token', password: 'bench', profile: 'bench' })
const model = buildModel(configuration)
await startServer(createServiceContext(model, createPool(benchAddress())), { host: '127.0.0.1', port })
process.send?.('ready')
