// CPU and memory of a process on this machine and of every process it started, sampled from /proc once a
// second: the server's (given its pid) and the driver's own, to tell which of the two was the bottleneck.
// The tree counts because the service with WORKERS runs its requests in forked workers: the primary alone
// would show an idle server.
import { readdirSync, readFileSync } from 'node:fs'

export interface ProcessSample {
  /** Seconds since the measured run began. */
  readonly second: number
  /** Share of one core used since the last sample, in percent. */
  readonly cpuPercent: number
  readonly rssMB: number
}

const TICKS_PER_SECOND = 100

/** The fields of /proc/<pid>/stat after the command's name (field 3 on), or undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The name is in parentheses and may itself hold ") ": the last one ends it.
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
  } catch {
    return undefined
  }
}

function cpuTicks(pid: number): number | undefined {
  const fields = statFields(pid)
  return fields ? Number(fields[11]) + Number(fields[12]) : undefined
}

/** The process and its descendants, read afresh each time (a worker that dies is forked again). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return [root]
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const parent = Number(statFields(Number(entry))?.[1])
    if (!Number.isFinite(parent)) continue
    const list = children.get(parent)
    if (list) list.push(Number(entry))
    else children.set(parent, [Number(entry)])
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []))
  return tree
}

function rssMB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

export class ProcessSampler {
  readonly samples: ProcessSample[] = []
  /** The most processes the tree held at one sample (the server's primary and its workers). */
  processes = 1
  private timer: NodeJS.Timeout | undefined
  /** Each process's CPU ticks at the last sample: a process that appears counts from its start. */
  private lastTicks = new Map<number, number>()
  private lastAt = 0
  private origin = 0

  constructor(readonly pid: number) {
    if (cpuTicks(pid) === undefined) throw new Error(`no process ${pid} on this machine (--pid)`)
  }

  start(origin: number): void {
    this.origin = origin
    this.lastTicks = this.treeTicks()
    this.lastAt = performance.now()
    this.timer = setInterval(() => this.sample(), 1000)
    this.timer.unref()
  }

  private treeTicks(): Map<number, number> {
    const ticks = new Map<number, number>()
    for (const pid of processTree(this.pid)) {
      const t = cpuTicks(pid)
      if (t !== undefined) ticks.set(pid, t)
    }
    return ticks
  }

  private sample(): void {
    if (cpuTicks(this.pid) === undefined) return
    const ticks = this.treeTicks()
    const now = performance.now()
    // A process gone since the last sample takes its last second's ticks with it: a small undercount at
    // a worker's death, never a negative share.
    let used = 0
    let rss = 0
    for (const [pid, t] of ticks) {
      used += t - (this.lastTicks.get(pid) ?? 0)
      rss += rssMB(pid)
    }
    const cpuPercent = (used / TICKS_PER_SECOND / ((now - this.lastAt) / 1000)) * 100
    this.processes = Math.max(this.processes, ticks.size)
    this.samples.push({
      second: Math.round((now - this.origin) / 100) / 10,
      cpuPercent: Math.round(cpuPercent * 10) / 10,
      rssMB: Math.round(rss * 10) / 10,
    })
    this.lastTicks = ticks
    this.lastAt = now
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    // A last sample only over a fair stretch: a few milliseconds give no CPU share worth drawing.
    if (performance.now() - this.lastAt >= 500) this.sample()
  }
}
