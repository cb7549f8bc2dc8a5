// What the process prints never holds a secret: the start banner lists credentials for the demo
// configuration only (public, in the README), and a database password is masked wherever it is printed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runCli } from '../support/run-cli.js'
import { type ChildService, startTestService } from '../support/test-service.js'

async function banner(service: ChildService): Promise<string> {
  for (let tries = 0; tries < 100 && !service.output().includes('try: curl'); tries++)
    await new Promise((resolve) => setTimeout(resolve, 50))
  return service.output()
}

t.test('another configuration: no password or token in the banner', async (t) => {
  const configuration = JSON.parse(readFileSync('config/demo.json', 'utf8'))
  delete configuration.$schema
  configuration.subjects = configuration.subjects.map((subject: Record<string, string>, i: number) => ({
    ...subject,
    password: `Pw-Secret-${i}`,
    token: `Tok-Secret-${i}`,
  }))
  const file = join(mkdtempSync(join(tmpdir(), 'banner-')), 'production.json')
  writeFileSync(file, JSON.stringify(configuration))
  const service = await startTestService('ops_banner_other', { process: 'child', environment: { CONFIG: file } })
  t.teardown(() => service.close())
  const output = await banner(service)
  t.match(output, /try: curl -u '<subject>:<password>'/)
  t.match(output, /demo \(profile default\)/, 'the subjects are named')
  t.notMatch(output, /Pw-Secret|Tok-Secret/, 'no secret printed')
})

t.test('the demo configuration: its public credentials, to get going', async (t) => {
  const service = await startTestService('ops_banner_demo', { process: 'child' })
  t.teardown(() => service.close())
  t.match(await banner(service), /demo: Basic demo:demo, token demo-token/)
})

t.test('a database password is masked in the error that names the database', async (t) => {
  const result = await runCli(['migrate'], { DATABASE_URL: 'mysql://app:S3cretPw@127.0.0.1:1/odata_w25_absent' }).done
  t.not(result.code, 0)
  t.match(result.output, /No MySQL server answers at mysql:\/\/app:\*\*\*@127\.0\.0\.1:1\//)
  t.notMatch(result.output, /S3cretPw/)
})
