// The drive tool's sampler (src/tools/drive/process-sampler.ts) counts a process with everything it started:
// the service with WORKERS does its work in forked workers, and the primary alone would look idle.
import { spawn } from 'node:child_process'
import t from 'tap'
import { ProcessSampler, processTree } from '../../src/tools/drive/process-sampler.js'

// A parent that forks a child that spins for a few seconds; the parent itself only waits.
const SPINNING_GRANDCHILD = `
const { spawn } = require('node:child_process')
const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 4000; while (Date.now() < end) {}'], { stdio: 'inherit' })
console.log(child.pid)
child.on('exit', () => process.exit(0))
`

t.test('the tree of a process holds its children and theirs; the sampler sums their CPU', async (t) => {
  const parent = spawn(process.execPath, ['-e', SPINNING_GRANDCHILD], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => parent.kill())
  const grandchild = await new Promise<number>((resolve) =>
    parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))),
  )
  const tree = processTree(process.pid)
  t.ok(tree.includes(parent.pid!), 'the child')
  t.ok(tree.includes(grandchild), 'the child of the child')
  t.same(processTree(grandchild), [grandchild], 'a process without children is its own tree')

  const sampler = new ProcessSampler(parent.pid!)
  sampler.start(performance.now())
  await new Promise((resolve) => setTimeout(resolve, 2500))
  sampler.stop()
  t.equal(sampler.processes, 2, 'the parent and the spinning child')
  const cpu = sampler.samples.reduce((sum, s) => sum + s.cpuPercent, 0)
  t.ok(cpu > 0, `the waiting parent's tree used CPU: its child's (${cpu} %)`)
  t.ok(
    sampler.samples.every((s) => s.cpuPercent >= 0),
    'never a negative share',
  )
})
