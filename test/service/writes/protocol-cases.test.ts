// Replays the wire cases of protocol/writes (format: protocol/README.md) against a running service with
// the seeded demo data: each a scenario of decisions.md §5 step by step, with the database effects each
// step names.
import t from 'tap'
import { replayWireCases } from '../../support/wire-replay.js'

await replayWireCases(t, 'writes', 16)
