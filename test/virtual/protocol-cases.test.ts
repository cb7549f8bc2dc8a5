// Replays the wire cases of protocol/virtual (format: protocol/virtual/README.md) against a running
// service loaded with the virtual-table fixture: a file per function and one of refusals.
import t from 'tap'
import { replayWireCases } from '../support/wire-cases.js'
import { startVirtualService } from './support/virtual-fixture.js'

const service = await startVirtualService('virtual_protocol_cases')
t.teardown(() => service.close())
replayWireCases(t, 'protocol/virtual', service, 5)
