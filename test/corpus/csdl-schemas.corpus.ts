// `$metadata` (src/model/csdl.ts) against the OASIS OData 4.01 schemas of the corpus: the XML against
// edmx.xsd/edm.xsd with libxml2 (xmllint-wasm), the JSON against csdl.schema.json with Ajv. Each validator
// is first shown to accept a known-valid document and to reject a known-invalid one, so a broken setup
// cannot pass silently. (The rest of the `$metadata` checks need no corpus: test/model/csdl.test.ts.)
import { readFileSync } from 'node:fs'
import AjvModule from 'ajv'
import t from 'tap'
import { validateXML } from 'xmllint-wasm'
import { buildMetadataJson, buildMetadataXml } from '../../src/model/csdl.js'
import { loadModel } from '../../src/model/load-model.js'
import { corpusPath } from './corpus-folder.js'

const model = loadModel('config/demo.json')
const metadataXml = buildMetadataXml(model)
const metadataJson = JSON.parse(buildMetadataJson(model)) as Record<string, Record<string, Record<string, unknown>>>
const namespace = model.namespace

async function validateAgainstXsd(fileName: string, contents: string) {
  return validateXML({
    xml: { fileName, contents },
    schema: { fileName: 'edmx.xsd', contents: readFileSync(corpusPath('csdl/schemas/edmx.xsd'), 'utf8') },
    // edmx.xsd imports edm.xsd by relative schemaLocation; xmllint-wasm reads only what is preloaded.
    preload: [{ fileName: 'edm.xsd', contents: readFileSync(corpusPath('csdl/schemas/edm.xsd'), 'utf8') }],
  })
}

t.test('the XML validates against the OData 4.01 EDMX schema', async (t) => {
  const positive = await validateAgainstXsd('csdl-16.1.xml', readFileSync(corpusPath('csdl/examples/csdl-16.1.xml'), 'utf8'))
  t.same(positive.errors, [], 'control: the spec example 16.1 is valid')
  const negative = await validateAgainstXsd('test1.xml', readFileSync(corpusPath('csdl/examples/counterexamples/test1.xml'), 'utf8'))
  t.equal(negative.valid, false, 'control: the counterexample with two Key elements is invalid')
  t.match(negative.errors[0]?.rawMessage, /:9:.*Key/, 'control: the error is at line 9, on Key')
  // Our own document with one identifier broken: shows the identifier patterns are checked on it too.
  const broken = await validateAgainstXsd('metadata.xml', metadataXml.replace('Name="Catalog_Организации"', 'Name="Catalog Организации"'))
  t.equal(broken.valid, false, 'control: an entity type name with a space is rejected')

  const result = await validateAgainstXsd('metadata.xml', metadataXml)
  t.same(
    result.errors.map((error) => error.rawMessage),
    [],
    'zero errors',
  )
  t.equal(result.valid, true)
})

t.test('the JSON validates against csdl.schema.json', async (t) => {
  const Ajv = AjvModule.default ?? AjvModule
  // As upstream validates its examples: strict mode, draft-07 (Ajv's default draft).
  const ajv = new Ajv({ strict: true, allErrors: true })
  const validate = ajv.compile(JSON.parse(readFileSync(corpusPath('csdl/schemas/csdl.schema.json'), 'utf8')))
  t.equal(
    validate(JSON.parse(readFileSync(corpusPath('csdl/examples/csdl-16.1.json'), 'utf8'))),
    true,
    'control: the spec example 16.1 is valid',
  )
  const broken = structuredClone(metadataJson)
  broken[namespace].Catalog_Products.$Kind = 'EntityTyp'
  t.equal(validate(broken), false, 'control: an unknown $Kind is rejected')
  t.equal(validate(metadataJson), true, 'zero errors')
  t.same(validate.errors ?? [], [])
})
