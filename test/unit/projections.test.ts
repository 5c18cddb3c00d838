import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { PROJECTIONS } from '../../projections/index.js'
import { projectionSpec, type ProjectionSpecFile } from '../helpers/projection-spec.js'

/**
 * Every read model, delivered its history in order, twice, and out of order, must say what its spec file expects.
 * Each area keeps its own history and expectations in `projection-specs/<area>.ts` (exporting `spec`); a projection
 * without expectations in any of them fails here.
 */
const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'projection-specs')
const files = await Promise.all(readdirSync(SPECS_DIR).filter((name) => name.endsWith('.ts')).sort()
  .map(async (name) => ({ name, spec: ((await import(join(SPECS_DIR, name))) as { spec: ProjectionSpecFile }).spec })))

for (const projection of PROJECTIONS) {
  t.test(projection.name, async (t) => {
    const covering = files.filter((file) => projection.name in file.spec.expectations)
    if (covering.length === 0) return t.fail(`${projection.name} has no expected documents: add them to a spec file in test/unit/projection-specs/`)
    for (const { name, spec } of covering) {
      await t.test(name, async (t) => {
        const documents = await projectionSpec(t, projection, await spec.history())
        spec.expectations[projection.name]!(t, documents)
      })
    }
  })
}
