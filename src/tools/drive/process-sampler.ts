// CPU and memory of a process on this machine, sampled from /proc once a second: the server's (given its
// pid) and the driver's own, to tell which of the two was the bottleneck.
import { readFileSync } from 'node:fs'

export interface ProcessSample {
  /** Seconds since the measured run began. */
  readonly second: number
  /** Share of one core used since the last sample, in percent. */
  readonly cpuPercent: number
  readonly rssMB: number
}

const TICKS_PER_SECOND = 100

function cpuTicks(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
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
  private timer: NodeJS.Timeout | undefined
  private lastTicks: number | undefined
  private lastAt = 0
  private origin = 0

  constructor(readonly pid: number) {
    if (cpuTicks(pid) === undefined) throw new Error(`no process ${pid} on this machine (--pid)`)
  }

  start(origin: number): void {
    this.origin = origin
    this.lastTicks = cpuTicks(this.pid)
    this.lastAt = performance.now()
    this.timer = setInterval(() => this.sample(), 1000)
    this.timer.unref()
  }

  private sample(): void {
    const ticks = cpuTicks(this.pid)
    const now = performance.now()
    if (ticks === undefined || this.lastTicks === undefined) return
    const cpuPercent = ((ticks - this.lastTicks) / TICKS_PER_SECOND / ((now - this.lastAt) / 1000)) * 100
    this.samples.push({
      second: Math.round((now - this.origin) / 100) / 10,
      cpuPercent: Math.round(cpuPercent * 10) / 10,
      rssMB: Math.round(rssMB(this.pid) * 10) / 10,
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
