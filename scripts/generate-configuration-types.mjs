// The configuration's TypeScript types are generated from its JSON schema (config/configuration.schema.json), so
// the two cannot disagree: `make build` runs this before compiling. `--check` only reports whether the committed
// file is current (exit 1 if not).
import { readFileSync, writeFileSync } from 'node:fs'
import { compileFromFile } from 'json-schema-to-typescript'

const SCHEMA = 'config/configuration.schema.json'
const TARGET = 'src/model/configuration-types.ts'
const banner = `// Generated from ${SCHEMA} by scripts/generate-configuration-types.mjs (run by \`make build\`). Do not edit:
// change the schema. src/model/configuration.ts gives these types the names the code uses.`

const generated = await compileFromFile(SCHEMA, {
  bannerComment: banner,
  additionalProperties: false,
  unreachableDefinitions: true,
  ignoreMinAndMaxItems: true,
  style: { semi: false, singleQuote: true, printWidth: 120 },
})

let current = ''
try {
  current = readFileSync(TARGET, 'utf8')
} catch {}
if (process.argv.includes('--check')) {
  if (current !== generated) {
    console.error(`${TARGET} is not what ${SCHEMA} gives: run \`make build\``)
    process.exit(1)
  }
} else if (current !== generated) {
  writeFileSync(TARGET, generated)
}
