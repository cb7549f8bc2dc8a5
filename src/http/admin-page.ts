// The administration page, served by the service itself (src/http/admin-endpoint.ts): plain HTML, one row
// per setting the service knows (live-settings.ts), and its script (admin-page-script.ts), without any
// library, so the page works offline on the host.
import { SETTING_NAMES, type SettingName } from '../service/live-settings.js'

/** The request log's levels, as the configuration schema lists them. */
const LOG_LEVEL_OPTIONS = ['off', 'errors', 'writes', 'all']

function settingRow(name: SettingName): string {
  const field =
    name === 'logLevel'
      ? `<select id="${name}" name="${name}">${LOG_LEVEL_OPTIONS.map((level) => `<option>${level}</option>`).join('')}</select>`
      : `<input id="${name}" name="${name}" type="text" size="8">`
  return `    <div class="row"><label for="${name}">${name}</label>${field}<button type="button" data-reset="${name}">reset</button><span class="source" data-source="${name}"></span></div>`
}

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
${SETTING_NAMES.map(settingRow).join('\n')}
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
<script type="module" src="$admin/page.js"></script>
</body>
</html>
`
