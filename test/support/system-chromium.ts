// The system's Chromium for tests that look at a page as a person would (through puppeteer-core, which
// downloads no browser): Debian's `chromium`, installed with apt-get when missing and the test runs as
// root; undefined when none can be had.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

export function systemChromium(): string | undefined {
  const found = () => CANDIDATES.find((path) => existsSync(path))
  if (found()) return found()
  if (process.getuid?.() !== 0 || spawnSync('which', ['apt-get']).status !== 0) return undefined
  try {
    execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 180_000 })
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'ignore',
      timeout: 420_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    })
  } catch {
    return undefined
  }
  return found()
}
