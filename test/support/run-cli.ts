// The command line as a user runs it (`node build/src/cli.js …`), as a child process: its output, its
// exit code, and the process itself for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process'

export interface CliRun {
  readonly child: ChildProcess
  /** Resolves when the process ends; `output` is stdout and stderr as they came. */
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; output: string }>
}

/** `stdin`: bytes the command reads on its standard input (none: stdin is closed). */
export function runCli(args: readonly string[], env: Record<string, string> = {}, stdin?: string | Buffer): CliRun {
  const child = spawn(process.execPath, ['build/src/cli.js', ...args], {
    env: { ...process.env, ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  if (stdin !== undefined) {
    // A command that stops reading early closes the pipe: not a failure of the test.
    child.stdin!.on('error', () => {})
    child.stdin!.end(stdin)
  }
  let stdout = ''
  let stderr = ''
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    output += chunk.toString()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    output += chunk.toString()
  })
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; output: string }>(
    (resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, output })),
  )
  return { child, done }
}

/**
 * The JSON line `{"event": "summary", …}` a tool printed last on stdout; `Summary` is what the tool
 * writes there (`LoadSummary` for load), for a test that reads its figures.
 */
export function summaryOf<Summary extends object = Record<string, unknown>>(stdout: string): Summary {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"event":"summary"'))
  if (!line) throw new Error(`no summary line in:\n${stdout}`)
  return JSON.parse(line) as Summary
}
