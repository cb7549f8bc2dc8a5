// The process logger (structured JSON lines on stdout; `LOG_LEVEL` sets the level). The request log of
// decisions.md §8 is a MySQL table and lives elsewhere; this one is for operators.
import { pino } from 'pino'

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
})
