// A server of a benchmark in a child process of its own (a script beside this one: bench-server.js, …): started,
// asked for its CPU time over IPC, stopped. With BENCH_CPU_PROF=<folder> the child runs under
// `node --cpu-prof` and leaves its profile there when stopped (open it in Chrome's DevTools); BENCH_SERVER_FLAGS
// passes further Node/V8 flags to it (space-separated, e.g. `--max-semi-space-size=64`) to try a setting.
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface ServerProcess {
  /** The child's process.cpuUsage(), in microseconds of user and system time. */
  cpu(): Promise<number>
  stop(): Promise<void>
}

/** `environment`: variables set for the child over this process's own (REQUEST_LOG_LEVEL, say). */
export async function startServerProcess(
  script: string,
  args: readonly string[],
  environment: Readonly<Record<string, string>> = {},
): Promise<ServerProcess> {
  const profile = process.env.BENCH_CPU_PROF
  const execArgv = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    ...(process.env.BENCH_SERVER_FLAGS ? process.env.BENCH_SERVER_FLAGS.split(' ') : []),
  ]
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), [...args], {
    stdio: 'inherit',
    execArgv,
    env: { ...process.env, ...environment },
  })
  await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)))
  })
  return {
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
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.send('exit')
        setTimeout(() => child.kill(), 5000).unref()
      }),
  }
}
