// Batches running at once in this process: more queue here instead of exhausting connections and memory.
import pLimit from 'p-limit'

const BATCHES_AT_ONCE = 4

/** Runs a batch's execution when one of the process's batch slots is free. */
export const batchSlots = pLimit(BATCHES_AT_ONCE)
