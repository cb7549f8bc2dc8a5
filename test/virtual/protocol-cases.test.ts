// Replays the wire cases of protocol/virtual (format: protocol/README.md) against a running service
// loaded with the virtual-table fixture: a folder per function (accounting registers' in accounting/) and
// one of refusals.
import t from 'tap'
import { replayWireCases } from '../support/wire-replay.js'

await replayWireCases(t, 'virtual', 36)
