// The database server's CPU time, when it runs on this machine: what a benchmark's service makes the
// database do besides what its baseline makes it do (the request log's rows, say) costs the same cores on
// a small machine, so a ratio is read with it. Found by process name (`mariadbd`, `mysqld`) in /proc and
// read from its `stat` (user and system time); on another system, or with the server elsewhere, there is
// no figure and the benchmark prints none.
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'

const SERVER_NAMES = new Set(['mariadbd', 'mysqld'])

function serverPid(): number | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (SERVER_NAMES.has(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry)
    } catch {
      // A process that ended meanwhile, or one this user may not read.
    }
  }
  return undefined
}

function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  } catch {
    return 100
  }
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * Reads the database server's CPU time in microseconds, when `host` (the benchmark's database) is this
 * machine and its server process can be read; undefined otherwise.
 */
export function databaseCpuReader(host: string): (() => number | undefined) | undefined {
  if (!LOCAL_HOSTS.has(host)) return undefined
  const pid = serverPid()
  if (pid === undefined) return undefined
  const microsecondsPerTick = 1e6 / clockTicksPerSecond()
  return () => {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return (Number(fields[11]) + Number(fields[12])) * microsecondsPerTick
    } catch {
      return undefined
    }
  }
}
