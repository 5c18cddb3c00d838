import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { generateSdkTypes, SDK_DIR, typesOf } from '../../scripts/generate-sdk-types.js'

// The TypeScript SDK's types are generated from the OpenAPI document the service serves; this fails when the
// committed ones are not what the served document makes now (`npm run generate:sdk` makes them again).

/** The first line where two texts differ, shown briefly (a whole diff of a 6000-line file helps nobody). */
const firstDifference = (committed: string, generated: string): string | null => {
  if (committed === generated) return null
  const a = committed.split('\n')
  const b = generated.split('\n')
  const line = a.findIndex((text, i) => text !== b[i])
  const at = line === -1 ? a.length : line
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end>')}, served ${JSON.stringify(b[at] ?? '<end>')}`
}

const generated = await generateSdkTypes()
const committed = {
  openapi: readFileSync(join(SDK_DIR, 'openapi.json'), 'utf8'),
  schema: readFileSync(join(SDK_DIR, 'src/schema.ts'), 'utf8'),
}
const HINT = 'run `npm run generate:sdk` and commit sdks/typescript'

t.test('sdks/typescript/openapi.json is the document GET /openapi.json serves', async (t) => {
  t.equal(firstDifference(committed.openapi, generated.openapi), null, HINT)
  t.ok(JSON.parse(committed.openapi).paths['/v1/jobs'], 'a real document')
})

t.test('sdks/typescript/src/schema.ts is what openapi-typescript makes of it', async (t) => {
  t.equal(firstDifference(committed.schema, generated.schema), null, HINT)
  t.match(committed.schema, /^ {4}"\/v1\/jobs\/\{job_id\}\/result": \{$/m)
})

t.test('the check notices a change of the served document', async (t) => {
  const changed = JSON.parse(generated.openapi)
  changed.components.schemas.Job.properties.new_field = { type: 'string' }
  const schema = await typesOf(JSON.stringify(changed))
  t.match(firstDifference(committed.schema, schema), /^line \d+: committed .*, served ".*new_field\?: string;"$/)
})
