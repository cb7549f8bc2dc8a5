// Replays the wire cases of protocol/reads (format: protocol/reads/README.md) against a running service
// loaded with the read fixture.
import t from 'tap'
import { replayWireCases } from '../support/wire-cases.js'
import { startReadService } from './support/read-fixture.js'

const service = await startReadService('read_protocol_cases')
t.teardown(() => service.close())
replayWireCases(t, 'protocol/reads', service, 3)
