/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The administration page's script, run by the browser (served as `$admin/page.js` from its compiled form,
// admin-endpoint.ts): no build step beyond the compiler, no library, so the page works offline on the host.
// It talks to the same endpoints any client uses (`$settings`) and to the page's JSON reads under `$admin/`.
// Every value from the server reaches the DOM as text (textContent), never as markup. The settings it
// shows are the rows the page has (admin-page.ts makes one per setting the service knows).

interface ErrorBody {
  readonly error?: { readonly message: string; readonly details?: readonly { readonly target?: string; readonly message: string }[] }
}
interface SettingsBody extends ErrorBody {
  readonly settings: Record<string, unknown>
  readonly sources: Record<string, string>
}
interface LogEntry {
  readonly id: string
  readonly at: string
  readonly subject: string
  readonly method: string
  readonly url: string
  readonly status: number
  readonly durationMs: number
  readonly operations: number | null
  readonly errorCode: string | null
  readonly batchId: string | null
}
interface LogBody extends ErrorBody {
  readonly entries: readonly LogEntry[]
  readonly total: number
  readonly page: number
  readonly pageSize: number
}
interface RateCounter {
  readonly subject: string
  readonly profile: string
  readonly perSeconds: number
  readonly operations: number
  readonly limit: number
  readonly windowEndsAt: string
}
interface Throughput {
  readonly at: number
  readonly requests: number
  readonly batchOperations: number
  readonly rowsStreamed: number
  readonly poolInUse: number
}

const byId = <E extends HTMLElement = HTMLInputElement>(id: string): E => document.getElementById(id) as E
const NAMES = [...document.querySelectorAll<HTMLElement>('[data-reset]')].map((button) => button.dataset.reset!)
const text = (tag: string, value: unknown): HTMLElement => {
  const element = document.createElement(tag)
  element.textContent = value == null ? '' : String(value)
  return element
}
const say = (element: HTMLElement, message: string, ok: boolean): void => {
  element.textContent = message
  element.className = ok ? 'ok' : 'error'
}

async function readJson<T extends ErrorBody>(response: Response): Promise<T> {
  const body = await response.text()
  try {
    return JSON.parse(body) as T
  } catch {
    return { error: { message: body } } as T
  }
}

function errorText(body: ErrorBody): string {
  const error = body?.error
  if (!error) return 'failed'
  const details = (error.details || []).map((detail) => (detail.target ? `${detail.target}: ` : '') + detail.message)
  return error.message + (details.length ? ` (${details.join('; ')})` : '')
}

let shown: Record<string, unknown> = {}
async function loadSettings(): Promise<void> {
  const response = await fetch('$settings', { headers: { Accept: 'application/json' } })
  const body = await readJson<SettingsBody>(response)
  if (!response.ok) return say(byId('settings-message'), errorText(body), false)
  shown = body.settings
  for (const name of NAMES) {
    byId(name).value = String(body.settings[name])
    document.querySelector(`[data-source="${name}"]`)!.textContent = body.sources[name] ?? ''
  }
}

async function patchSettings(patch: Record<string, unknown>): Promise<void> {
  const response = await fetch('$settings', {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(patch),
  })
  const body = await readJson(response)
  if (!response.ok) return say(byId('settings-message'), errorText(body), false)
  await loadSettings()
  say(byId('settings-message'), `Saved: ${Object.keys(patch).join(', ')}`, true)
}

byId('settings-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const patch: Record<string, unknown> = {}
  for (const name of NAMES) {
    const raw = byId(name).value.trim()
    // Numbers go as numbers when they read as one; anything else as typed, for the service to refuse.
    const value = name === 'logLevel' ? raw : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw
    if (value !== shown[name]) patch[name] = value
  }
  if (Object.keys(patch).length === 0) return say(byId('settings-message'), 'Nothing changed', true)
  void patchSettings(patch)
})
for (const button of document.querySelectorAll<HTMLElement>('[data-reset]')) {
  button.addEventListener('click', () => patchSettings({ [button.dataset.reset!]: null }))
}

let logPage = 1
async function loadLog(): Promise<void> {
  const query = new URLSearchParams({ page: String(logPage) })
  const filters = {
    status: byId('log-status').value.trim(),
    subject: byId('log-subject').value.trim(),
    batch: byId('log-batch').value.trim(),
  }
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value)
  const response = await fetch(`$admin/log?${query}`, { headers: { Accept: 'application/json' } })
  const body = await readJson<LogBody>(response)
  if (!response.ok) return say(byId('log-message'), errorText(body), false)
  byId('log-message').textContent = ''
  const rows = body.entries.map((entry) => {
    const row = document.createElement('tr')
    row.dataset.id = entry.id
    const cells: [unknown, string?][] = [
      [entry.at],
      [entry.subject],
      [entry.method],
      [entry.url, 'url'],
      [entry.status],
      [entry.durationMs],
      [entry.operations],
      [entry.errorCode],
      [entry.batchId],
    ]
    for (const [value, kind] of cells) {
      const cell = text('td', value)
      if (kind) cell.className = kind
      row.append(cell)
    }
    return row
  })
  byId('log-body').replaceChildren(...rows)
  const pages = Math.max(1, Math.ceil(body.total / body.pageSize))
  byId('log-page').textContent = `page ${body.page} of ${pages} (${body.total} entries)`
  byId<HTMLButtonElement>('log-previous').disabled = body.page <= 1
  byId<HTMLButtonElement>('log-next').disabled = body.page >= pages
}
byId('log-form').addEventListener('submit', (event) => {
  event.preventDefault()
  logPage = 1
  void loadLog()
})
byId('log-previous').addEventListener('click', () => {
  logPage = Math.max(1, logPage - 1)
  void loadLog()
})
byId('log-next').addEventListener('click', () => {
  logPage += 1
  void loadLog()
})

async function loadRates(): Promise<void> {
  const response = await fetch('$admin/rates', { headers: { Accept: 'application/json' } })
  if (!response.ok) return
  const body = (await response.json()) as { counters: RateCounter[] }
  byId('rates-body').replaceChildren(
    ...body.counters.map((counter) => {
      const row = document.createElement('tr')
      row.append(
        text('td', counter.subject),
        text('td', counter.profile),
        text('td', `${counter.perSeconds} s`),
        text('td', counter.operations),
        text('td', counter.limit),
        text('td', counter.windowEndsAt),
      )
      return row
    }),
  )
}

let previous: Throughput | undefined
async function loadThroughput(): Promise<void> {
  const response = await fetch('$admin/throughput', { headers: { Accept: 'application/json' } })
  if (!response.ok) return
  const now = (await response.json()) as Throughput
  if (previous) {
    const before = previous
    const seconds = Math.max(0.001, (now.at - before.at) / 1000)
    const rate = (name: 'requests' | 'batchOperations' | 'rowsStreamed') => ((now[name] - before[name]) / seconds).toFixed(1)
    byId('requests-rate').textContent = rate('requests')
    byId('operations-rate').textContent = rate('batchOperations')
    byId('rows-rate').textContent = rate('rowsStreamed')
  }
  byId('pool-in-use').textContent = String(now.poolInUse)
  previous = now
}

void loadSettings()
void loadLog()
void loadRates()
void loadThroughput()
setInterval(() => {
  void loadThroughput()
  void loadRates()
}, 2000)
