// The reject file on its own (src/tools/load/reject-file.ts): a reject that cannot be written (its folder
// gone, a full disk) stops the load (InputStop, so the summary is printed and the exit code is 1) with a
// message naming the file and the row, instead of a bare system error; the count is of rejects written.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { InputStop } from '../../src/tools/load/input-source.js'
import { RejectFile } from '../../src/tools/load/reject-file.js'

const rejection = (row: number) => ({ source: 'Catalog_Products:a.csv', row, record: {}, status: 0, code: 'FieldCount', message: 'x' })

t.test('a reject that cannot be written stops the load, naming the reject file and the row', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'odata-rejects-'))
  const written = new RejectFile(join(folder, 'ok.ndjson'))
  written.write(rejection(1))
  written.close()
  t.equal(readFileSync(join(folder, 'ok.ndjson'), 'utf8').split('\n').length, 2, 'one line written')
  rmSync(folder, { recursive: true })
  const lost = new RejectFile(join(folder, 'gone.ndjson'))
  let stop: unknown
  try {
    lost.write(rejection(7))
  } catch (error) {
    stop = error
  }
  t.ok(stop instanceof InputStop, 'the load stops (with its summary)')
  t.match((stop as Error).message, /the reject file .*gone\.ndjson cannot be written \(ENOENT\): row 7 of Catalog_Products:a\.csv/)
  t.equal(lost.count, 0, 'nothing counted that was not written')
})
