// The service behind Debian's nginx as a TLS-terminating reverse proxy, with the configuration shipped in
// deploy/nginx/odata-registers.conf (docs/operations.md): a certificate made with openssl for the test, the
// shipped file with only its port, certificate paths and upstream port changed, and through it a `$batch`
// that creates, a single create and a paged read. Every link the service writes (`Location`,
// `@odata.context`, `@odata.nextLink`) is in the https form of the address the client used, the next link
// is followed through the proxy, and the creates are read back from the database.
// Without nginx, and when apt-get cannot install it, the test skips with one line saying so.
import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { Agent } from 'undici'
import { freePort } from '../support/free-port.js'
import { startTestService } from '../support/test-service.js'

const exec = promisify(execFile)
const SHIPPED = 'deploy/nginx/odata-registers.conf'

/** The nginx binary, installed with apt-get when missing and possible; undefined with the reason otherwise. */
function findNginx(): { binary?: string; reason?: string } {
  const known = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((candidate) => existsSync(candidate))
  if (known) return { binary: known }
  if (process.getuid?.() !== 0) return { reason: 'nginx is not installed and installing it needs root' }
  try {
    const options = { stdio: 'ignore' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 }
    execFileSync('apt-get', ['update'], options)
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], options)
  } catch {
    return { reason: 'nginx is not installed and apt-get could not install it' }
  }
  const installed = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((candidate) => existsSync(candidate))
  return installed ? { binary: installed } : { reason: 'apt-get installed no nginx binary' }
}

/** The shipped configuration with what a test machine needs changed; each change must find its text. */
function adaptedConfiguration(values: { port: number; certificate: string; key: string; upstream: number }): string {
  let text = readFileSync(SHIPPED, 'utf8')
  const replacements: Array<[string, string]> = [
    ['listen 443 ssl;', `listen 127.0.0.1:${values.port} ssl;`],
    ['/etc/ssl/odata-registers/fullchain.pem', values.certificate],
    ['/etc/ssl/odata-registers/privkey.pem', values.key],
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${values.upstream};`],
  ]
  for (const [from, to] of replacements) {
    if (!text.includes(from)) throw new Error(`${SHIPPED} no longer holds ${JSON.stringify(from)}: adapt this test`)
    text = text.replace(from, to)
  }
  return text
}

const nginx = findNginx()
if (nginx.binary === undefined) {
  t.skip(`nginx reverse proxy: skipped, ${nginx.reason}`, () => {})
} else {
  const binary = nginx.binary
  t.test('through nginx with TLS: a $batch, a create and a paged read, every link in https form', async (t) => {
    const folder = mkdtempSync(path.join(tmpdir(), 'nginx-proxy-'))
    const certificate = path.join(folder, 'cert.pem')
    const key = path.join(folder, 'key.pem')
    await exec('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      certificate,
    ])

    const service = await startTestService('deploy_nginx', { process: 'child' })
    t.teardown(() => service.close())
    const port = await freePort()
    const server = adaptedConfiguration({ port, certificate, key, upstream: service.port })
    // A main configuration of its own (no daemon, every file in the test's folder) around the shipped server block.
    const main = `pid ${folder}/nginx.pid;
error_log ${folder}/error.log;
daemon off;
events {}
http {
    access_log ${folder}/access.log;
    client_body_temp_path ${folder}/body;
    proxy_temp_path ${folder}/proxy;
    fastcgi_temp_path ${folder}/fastcgi;
    uwsgi_temp_path ${folder}/uwsgi;
    scgi_temp_path ${folder}/scgi;
${server}
}
`
    writeFileSync(path.join(folder, 'nginx.conf'), main)
    await exec(binary, ['-t', '-p', folder, '-e', `${folder}/error.log`, '-c', path.join(folder, 'nginx.conf')])
    const proxy = spawn(binary, ['-p', folder, '-e', `${folder}/error.log`, '-c', path.join(folder, 'nginx.conf')], { stdio: 'ignore' })
    const proxyExited = new Promise((resolve) => proxy.once('exit', resolve))
    t.teardown(async () => {
      proxy.kill('SIGQUIT')
      await proxyExited
    })

    const dispatcher = new Agent({ connect: { ca: readFileSync(certificate, 'utf8') } })
    t.teardown(() => dispatcher.close())
    const root = `https://localhost:${port}/api/v4`
    const headers = { authorization: 'Bearer demo-token', 'odata-version': '4.01' }
    const call = async (url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) => {
      // nginx may take a moment to listen after it starts: the first call retries while the port refuses.
      for (let attempt = 0; ; attempt++) {
        try {
          return await fetch(url, { ...init, headers: { ...headers, ...init.headers }, dispatcher } as RequestInit)
        } catch (error) {
          if (attempt >= 50) throw error
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    }

    // A $batch through the proxy: one atomicity group of three creates.
    const requests = ['NX-1', 'NX-2', 'NX-3'].map((code, index) => ({
      id: String(index + 1),
      atomicityGroup: 'g',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'content-type': 'application/json' },
      body: { Code: code, Description: `Behind nginx ${index + 1}` },
    }))
    const batch = await call(`${root}/$batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ requests }),
    })
    t.equal(batch.status, 200, '$batch through the proxy')
    const answer = (await batch.json()) as { responses: Array<{ status: number; headers: Record<string, string> }> }
    t.same(
      answer.responses.map((response) => response.status),
      [201, 201, 201],
    )
    for (const response of answer.responses)
      t.match(response.headers.Location, new RegExp(`^https://localhost:${port}/api/v4/Catalog_Warehouses\\([0-9a-f-]{36}\\)$`))

    // A single create: its Location.
    const created = await call(`${root}/Catalog_Warehouses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Code: 'NX-4', Description: 'Behind nginx 4' }),
    })
    t.equal(created.status, 201)
    t.match(created.headers.get('location'), new RegExp(`^https://localhost:${port}/api/v4/Catalog_Warehouses\\(`))
    t.match(((await created.json()) as Record<string, string>)['@odata.context'], `https://localhost:${port}/api/v4/$metadata#`)

    // What was committed, read back from the database.
    const [rows] = await service.database.pool.query("SELECT Code FROM c_Warehouses WHERE Code LIKE 'NX-%' ORDER BY Code")
    t.same(
      (rows as Array<{ Code: string }>).map((row) => row.Code),
      ['NX-1', 'NX-2', 'NX-3', 'NX-4'],
    )

    // A paged read, every page through the proxy by the next link as given.
    let url: string | undefined = `${root}/Catalog_Warehouses?$filter=startswith(Code,'NX-')&$orderby=Code&$select=Code`
    const codes: string[] = []
    let pages = 0
    while (url !== undefined) {
      const page = await call(url, { headers: { prefer: 'odata.maxpagesize=3' } })
      t.equal(page.status, 200, `page ${pages + 1}`)
      const body = (await page.json()) as { '@odata.context': string; '@odata.nextLink'?: string; value: Array<{ Code: string }> }
      t.equal(body['@odata.context'], `https://localhost:${port}/api/v4/$metadata#Catalog_Warehouses(Code)`)
      if (body['@odata.nextLink'] !== undefined) t.match(body['@odata.nextLink'], `https://localhost:${port}/api/v4/Catalog_Warehouses?`)
      codes.push(...body.value.map((row) => row.Code))
      url = body['@odata.nextLink']
      pages++
    }
    t.equal(pages, 2, 'two pages of at most three')
    t.same(codes, ['NX-1', 'NX-2', 'NX-3', 'NX-4'])

    // The service itself, without the proxy, writes http links: the https form came from the proxy.
    const direct = await fetch(`http://127.0.0.1:${service.port}/api/v4/Catalog_Warehouses?$top=1`, { headers })
    t.match(((await direct.json()) as Record<string, string>)['@odata.context'], /^http:\/\/127\.0\.0\.1:/)
  })
}
