// The administration page's two files, served by the service itself (src/http/admin-endpoint.ts): plain
// HTML and a script without any build step or library, so the page works offline on the host. The script
// talks to the same endpoints any client uses (`$settings`) and to the page's JSON reads under `$admin/`.
// Every value from the server reaches the DOM as text (textContent), never as markup.

export const ADMIN_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Service administration</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2430; background: #f7f8fa; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
  section { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 1rem; margin-bottom: 1rem; }
  label { display: inline-block; min-width: 11rem; }
  .row { margin: .3rem 0; }
  .source { color: #667; font-size: .85rem; margin-left: .5rem; }
  .error { color: #b00020; }
  .ok { color: #136b2d; }
  table { border-collapse: collapse; width: 100%; font-size: .85rem; }
  th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #eceef2; vertical-align: top; }
  td.url { word-break: break-all; }
  .figures span { display: inline-block; min-width: 12rem; }
  input, select, button { font: inherit; }
</style>
</head>
<body>
<h1>Service administration</h1>
<section id="settings">
  <h2>Settings</h2>
  <form id="settings-form">
    <div class="row"><label for="maxBatchSizeMB">maxBatchSizeMB</label><input id="maxBatchSizeMB" name="maxBatchSizeMB" type="text" size="8"><button type="button" data-reset="maxBatchSizeMB">reset</button><span class="source" data-source="maxBatchSizeMB"></span></div>
    <div class="row"><label for="maxBatchOperations">maxBatchOperations</label><input id="maxBatchOperations" name="maxBatchOperations" type="text" size="8"><button type="button" data-reset="maxBatchOperations">reset</button><span class="source" data-source="maxBatchOperations"></span></div>
    <div class="row"><label for="logLevel">logLevel</label><select id="logLevel" name="logLevel"><option>off</option><option>errors</option><option>writes</option><option>all</option></select><button type="button" data-reset="logLevel">reset</button><span class="source" data-source="logLevel"></span></div>
    <div class="row"><label for="pageSize">pageSize</label><input id="pageSize" name="pageSize" type="text" size="8"><button type="button" data-reset="pageSize">reset</button><span class="source" data-source="pageSize"></span></div>
    <div class="row"><label for="changeRetentionHours">changeRetentionHours</label><input id="changeRetentionHours" name="changeRetentionHours" type="text" size="8"><button type="button" data-reset="changeRetentionHours">reset</button><span class="source" data-source="changeRetentionHours"></span></div>
    <div class="row"><button id="save" type="submit">Save</button> <span id="settings-message" role="status"></span></div>
  </form>
</section>
<section id="throughput">
  <h2>Throughput</h2>
  <div class="figures"><span>requests/s: <b id="requests-rate">…</b></span><span>batch operations/s: <b id="operations-rate">…</b></span><span>rows streamed/s: <b id="rows-rate">…</b></span><span>pool in use: <b id="pool-in-use">…</b></span></div>
</section>
<section id="rates">
  <h2>Rate rules</h2>
  <table><thead><tr><th>subject</th><th>profile</th><th>rule</th><th>used</th><th>limit</th><th>window ends</th></tr></thead><tbody id="rates-body"></tbody></table>
</section>
<section id="log">
  <h2>Request log</h2>
  <form id="log-form">
    <label for="log-status" style="min-width:auto">status</label> <input id="log-status" size="5" placeholder="4xx">
    <label for="log-subject" style="min-width:auto">subject</label> <input id="log-subject" size="10">
    <label for="log-batch" style="min-width:auto">batch (Пакет)</label> <input id="log-batch" size="38">
    <button type="submit">Filter</button>
    <button type="button" id="log-previous">‹ newer</button> <span id="log-page"></span> <button type="button" id="log-next">older ›</button>
    <span id="log-message" class="error" role="status"></span>
  </form>
  <table><thead><tr><th>at</th><th>subject</th><th>method</th><th>url</th><th>status</th><th>ms</th><th>operations</th><th>error</th><th>batch</th></tr></thead><tbody id="log-body"></tbody></table>
</section>
<script src="$admin/page.js"></script>
</body>
</html>
`

export const ADMIN_SCRIPT = `'use strict'
const NAMES = ['maxBatchSizeMB', 'maxBatchOperations', 'logLevel', 'pageSize', 'changeRetentionHours']
const byId = (id) => document.getElementById(id)
const text = (tag, value) => { const element = document.createElement(tag); element.textContent = value == null ? '' : String(value); return element }
const say = (element, message, ok) => { element.textContent = message; element.className = ok ? 'ok' : 'error' }

async function readJson(response) {
  const body = await response.text()
  try { return JSON.parse(body) } catch { return { error: { message: body } } }
}

function errorText(body) {
  const error = body && body.error
  if (!error) return 'failed'
  const details = (error.details || []).map((detail) => (detail.target ? detail.target + ': ' : '') + detail.message)
  return error.message + (details.length ? ' (' + details.join('; ') + ')' : '')
}

let shown = {}
async function loadSettings() {
  const response = await fetch('$settings', { headers: { Accept: 'application/json' } })
  const body = await readJson(response)
  if (!response.ok) return say(byId('settings-message'), errorText(body), false)
  shown = body.settings
  for (const name of NAMES) {
    byId(name).value = String(body.settings[name])
    document.querySelector('[data-source="' + name + '"]').textContent = body.sources[name]
  }
}

async function patchSettings(patch) {
  const response = await fetch('$settings', { method: 'PATCH', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(patch) })
  const body = await readJson(response)
  if (!response.ok) return say(byId('settings-message'), errorText(body), false)
  await loadSettings()
  say(byId('settings-message'), 'Saved: ' + Object.keys(patch).join(', '), true)
}

byId('settings-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const patch = {}
  for (const name of NAMES) {
    const raw = byId(name).value.trim()
    // Numbers go as numbers when they read as one; anything else as typed, for the service to refuse.
    const value = name === 'logLevel' ? raw : (/^-?\\d+(\\.\\d+)?$/.test(raw) ? Number(raw) : raw)
    if (value !== shown[name]) patch[name] = value
  }
  if (Object.keys(patch).length === 0) return say(byId('settings-message'), 'Nothing changed', true)
  patchSettings(patch)
})
for (const button of document.querySelectorAll('[data-reset]')) {
  button.addEventListener('click', () => patchSettings({ [button.dataset.reset]: null }))
}

let logPage = 1
async function loadLog() {
  const query = new URLSearchParams({ page: String(logPage) })
  const filters = { status: byId('log-status').value.trim(), subject: byId('log-subject').value.trim(), batch: byId('log-batch').value.trim() }
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value)
  const response = await fetch('$admin/log?' + query, { headers: { Accept: 'application/json' } })
  const body = await readJson(response)
  if (!response.ok) return say(byId('log-message'), errorText(body), false)
  byId('log-message').textContent = ''
  const rows = body.entries.map((entry) => {
    const row = document.createElement('tr')
    row.dataset.id = entry.id
    for (const [value, kind] of [[entry.at], [entry.subject], [entry.method], [entry.url, 'url'], [entry.status], [entry.durationMs], [entry.operations], [entry.errorCode], [entry.batchId]]) {
      const cell = text('td', value)
      if (kind) cell.className = kind
      row.append(cell)
    }
    return row
  })
  byId('log-body').replaceChildren(...rows)
  const pages = Math.max(1, Math.ceil(body.total / body.pageSize))
  byId('log-page').textContent = 'page ' + body.page + ' of ' + pages + ' (' + body.total + ' entries)'
  byId('log-previous').disabled = body.page <= 1
  byId('log-next').disabled = body.page >= pages
}
byId('log-form').addEventListener('submit', (event) => { event.preventDefault(); logPage = 1; loadLog() })
byId('log-previous').addEventListener('click', () => { logPage = Math.max(1, logPage - 1); loadLog() })
byId('log-next').addEventListener('click', () => { logPage += 1; loadLog() })

async function loadRates() {
  const response = await fetch('$admin/rates', { headers: { Accept: 'application/json' } })
  if (!response.ok) return
  const body = await response.json()
  byId('rates-body').replaceChildren(...body.counters.map((counter) => {
    const row = document.createElement('tr')
    row.append(text('td', counter.subject), text('td', counter.profile), text('td', counter.perSeconds + ' s'), text('td', counter.operations), text('td', counter.limit), text('td', counter.windowEndsAt))
    return row
  }))
}

let previous
async function loadThroughput() {
  const response = await fetch('$admin/throughput', { headers: { Accept: 'application/json' } })
  if (!response.ok) return
  const now = await response.json()
  if (previous) {
    const seconds = Math.max(0.001, (now.at - previous.at) / 1000)
    const rate = (name) => ((now[name] - previous[name]) / seconds).toFixed(1)
    byId('requests-rate').textContent = rate('requests')
    byId('operations-rate').textContent = rate('batchOperations')
    byId('rows-rate').textContent = rate('rowsStreamed')
  }
  byId('pool-in-use').textContent = String(now.poolInUse)
  previous = now
}

loadSettings()
loadLog()
loadRates()
loadThroughput()
setInterval(() => { loadThroughput(); loadRates() }, 2000)
`
