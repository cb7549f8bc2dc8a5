// The service as a process of its own (`node build/src/cli.js serve`) on a test database, for tests that
// kill it (`kill -9`) and start it again on the same port, and for tools that talk to it as clients.
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import type { DatabaseAddress } from '../../src/store/database-url.js'

export interface ServiceProcess {
  readonly port: number
  /** The token root, `http://127.0.0.1:<port>/api/v4/`. */
  readonly root: string
  readonly child: ChildProcess
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>
}

export function databaseUrl(address: DatabaseAddress): string {
  const credentials = address.password ? `${address.user}:${encodeURIComponent(address.password)}` : address.user
  return `mysql://${credentials}@${address.host}:${address.port}/${address.database}`
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })
}

export async function startServiceProcess(
  address: DatabaseAddress,
  options: { port?: number; configFile?: string } = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort())
  const child = spawn(process.execPath, ['build/src/cli.js', 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl(address),
      PORT: String(port),
      HOST: '127.0.0.1',
      SEED_SCALE: '0',
      WORKERS: '1',
      LOG_LEVEL: 'silent',
      CONFIG: options.configFile ?? 'config/demo.json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 60 s:\n${output}`)), 60_000)
    const look = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('token flavour')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', look)
    child.stderr!.on('data', look)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the service exited with ${code}:\n${output}`))
    })
  })
  child.stdout!.resume()
  child.stderr!.resume()
  return {
    port,
    root: `http://127.0.0.1:${port}/api/v4/`,
    child,
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  }
}
