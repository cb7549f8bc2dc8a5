// The system's Chromium for tests that look at a page as a person would (through puppeteer-core, which
// downloads no browser): found where Debian installs it (or CHROMIUM_PATH), installed with apt-get when
// missing and this process may (root), or the reason there is none, for one clear skip.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium', '/usr/bin/google-chrome']

function found(): string | undefined {
  return [process.env.CHROMIUM_PATH, ...CANDIDATES].find((path): path is string => path !== undefined && path !== '' && existsSync(path))
}

export function findChromium(): { path: string } | { reason: string } {
  const present = found()
  if (present) return { path: present }
  if (process.getuid?.() !== 0) return { reason: 'no Chromium installed, and installing it needs root (apt-get install -y chromium)' }
  try {
    execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 300_000 })
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'ignore',
      timeout: 900_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    })
  } catch (error) {
    return { reason: `Chromium could not be installed with apt-get (${(error as Error).message.split('\n')[0]})` }
  }
  const installed = found()
  return installed ? { path: installed } : { reason: 'apt-get installed no chromium binary' }
}
