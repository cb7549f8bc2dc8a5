// The one way a service (or a bare baseline server) is started as a child process, by the tests
// (`startTestService(name, { process: 'child' })`: `cli.js serve` as an operator runs it) and by the
// benchmarks (their servers: perf/support/bench-server.js, the bare baselines beside it). Forked, so
// that an IPC channel is always there: a benchmark's server says it is ready and answers 'cpu' with its
// process.cpuUsage() over it, and exits on 'exit', so a `--cpu-prof` run writes its profile.
//
// A benchmark's server (`benchmark: true`) runs with BENCH_CPU_PROF=<folder> under `node --cpu-prof`
// and leaves its profile there when stopped (open it in Chrome's DevTools); BENCH_SERVER_FLAGS passes
// further Node/V8 flags to it (space-separated, e.g. `--max-semi-space-size=64`) to try a setting.
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface ServiceChildOptions {
  /** Variables over this process's own. */
  readonly environment?: Readonly<Record<string, string | undefined>>
  /**
   * When the child serves: at its first IPC message (`'message'`), or once its output matches (then the
   * output is collected, not passed on).
   */
  readonly ready: 'message' | RegExp
  /** How `stop()` ends it by default: a signal, or the IPC message 'exit' (SIGKILL after 5 s). */
  readonly stopWith: NodeJS.Signals | 'message'
  /** BENCH_CPU_PROF and BENCH_SERVER_FLAGS apply. */
  readonly benchmark?: boolean
}

export interface ServiceChild {
  readonly child: ChildProcess
  /** Everything the process wrote so far (stdout and stderr) when its output is collected, '' otherwise. */
  output(): string
  /** Resolves with the exit status (or the signal's name). */
  readonly exited: Promise<number | string>
  /** The child's process.cpuUsage() in microseconds of user and system time (a child that answers 'cpu'). */
  cpu(): Promise<number>
  /** Ends the child (by `signal`, or as `stopWith` says) and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

const READY_TIMEOUT_MS = 120_000
const EXIT_GRACE_MS = 5000

export async function startServiceChild(script: string, args: readonly string[], options: ServiceChildOptions): Promise<ServiceChild> {
  const profile = options.benchmark ? process.env.BENCH_CPU_PROF : undefined
  const flags = options.benchmark ? process.env.BENCH_SERVER_FLAGS : undefined
  const execArgv = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), ...(flags ? flags.split(' ') : [])]
  const collect = options.ready !== 'message'
  const child = fork(script, [...args], {
    execArgv,
    env: { ...process.env, ...options.environment },
    stdio: collect ? ['ignore', 'pipe', 'pipe', 'ipc'] : 'inherit',
  })
  let text = ''
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearInterval(timer)
      clearTimeout(timeout)
      child.off('message', onMessage)
      if (error) reject(error)
      else resolve()
    }
    const onMessage = () => {
      if (options.ready === 'message') done()
    }
    const timeout = setTimeout(() => done(new Error(`${script} did not start in ${READY_TIMEOUT_MS / 1000} s:\n${text}`)), READY_TIMEOUT_MS)
    const ready = options.ready
    const timer = setInterval(() => {
      if (ready instanceof RegExp && ready.test(text)) done()
    }, 50)
    child.on('message', onMessage)
    void exited.then((status) => done(new Error(`${script} exited (${status}) before it served:\n${text}`)))
  })
  return {
    child,
    output: () => text,
    exited,
    cpu: () =>
      new Promise((resolve) => {
        const listener = (message: unknown) => {
          const cpu = (message as { cpu?: NodeJS.CpuUsage }).cpu
          if (!cpu) return
          child.off('message', listener)
          resolve(cpu.user + cpu.system)
        }
        child.on('message', listener)
        child.send('cpu')
      }),
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return
      const how = signal ?? options.stopWith
      if (how === 'message') {
        child.send('exit')
        setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS).unref()
      } else {
        child.kill(how)
      }
      await exited
    },
  }
}

/**
 * A benchmark's server: a script of perf/support (bench-server.js, a bare baseline, …) that says it is
 * ready, answers 'cpu' and exits on 'exit' over IPC; its output passes through. `environment`: variables
 * set for it over this process's own (REQUEST_LOG_LEVEL, say).
 */
export function startBenchmarkServer(
  script: string,
  args: readonly string[],
  environment: Readonly<Record<string, string>> = {},
): Promise<ServiceChild> {
  const path = fileURLToPath(new URL(`../../perf/support/${script}`, import.meta.url))
  return startServiceChild(path, args, { environment, ready: 'message', stopWith: 'message', benchmark: true })
}
