// The service as an operator runs it: `node build/src/cli.js serve` in a child process, against a test
// database of its own, for the tests of the process itself (signals, worker processes, environment).
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from './service-process.js'
import { createTestDatabase, type TestDatabase } from './test-database.js'

export interface ServiceProcess {
  readonly child: ChildProcess
  readonly port: number
  readonly database: TestDatabase
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string
  /** Resolves with the exit status (or the signal's name). */
  readonly exited: Promise<number | string>
  close(): Promise<void>
}

/** Runs `cli.js serve` with `environment` over a fresh database; resolves once it prints its URLs. */
export async function startServiceProcess(
  name: string,
  environment: Record<string, string> = {},
  options: { database?: TestDatabase } = {},
): Promise<ServiceProcess> {
  const database = options.database ?? (await createTestDatabase(name))
  const { host, port: databasePort, user, password, database: databaseName } = database.address
  const databaseUrl = `mysql://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@${host}:${databasePort}/${databaseName}`
  const port = environment.PORT === undefined ? await freePort() : Number(environment.PORT)
  const child = spawn(process.execPath, ['build/src/cli.js', 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SEED_SCALE: '0',
      WORKERS: '1',
      LOG_LEVEL: 'info',
      ...environment,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      // The URLs are printed once every process listens.
      if (/token flavour:/.test(text)) {
        clearInterval(timer)
        resolve()
      }
    }, 50)
    void exited.then((status) => {
      clearInterval(timer)
      reject(new Error(`the service exited (${status}) before it served:\n${text}`))
    })
  })
  return {
    child,
    port,
    database,
    output: () => text,
    exited,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await exited
      }
      await database.drop()
    },
  }
}

/** Runs `cli.js` with `args` and `environment` to its end: its exit status and what it wrote. */
export function runCli(args: readonly string[], environment: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['build/src/cli.js', ...args], {
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (status) => resolve({ status, output }))
  })
}
