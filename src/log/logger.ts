// The process logger (structured JSON lines on stdout; `LOG_LEVEL` sets the level). The request log of
// decisions.md §8 is a MySQL table and lives elsewhere; this one is for operators.
import { pino } from 'pino'

const requested = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info')

export const logger = pino({
  // An unknown LOG_LEVEL is reported with the other variables at start (src/ops/environment.ts), not thrown here.
  level: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(requested) ? requested : 'info',
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
})
