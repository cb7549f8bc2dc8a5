// Replays the wire cases of protocol/reads (format: protocol/README.md) against a running service
// loaded with the read fixture.
import t from 'tap'
import { replayWireCases } from '../../support/wire-replay.js'

await replayWireCases(t, 'reads', 30)
