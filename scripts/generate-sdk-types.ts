// Generates the TypeScript SDK's types (sdks/typescript/src/schema.ts) from the OpenAPI document the API serves at
// /openapi.json, and keeps that document beside them (sdks/typescript/openapi.json). Run after changing a route's
// schema: `npm run generate:sdk`. test/sdk/typescript-sdk-types.test.ts fails when the committed files differ from
// what this makes now.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { buildApp } from '../api/app.js'
import { systemClock } from '../infra/clock/system.js'

export const SDK_DIR = fileURLToPath(new URL('../sdks/typescript/', import.meta.url))
const GENERATOR = join(SDK_DIR, 'node_modules/.bin/openapi-typescript')

/** GET /openapi.json of an app that runs no effects (the document depends on the routes only). */
export const fetchServedOpenApi = async (): Promise<string> => {
  const app = await buildApp({
    run: () => Promise.reject(new Error('no effects run while serving the document')),
    clock: systemClock,
    settings: { publicBaseUrl: 'http://127.0.0.1', artifactUrlTtlSeconds: 60, resultWaitMaxSeconds: 60, ssrfAllowlist: new Set() },
  })
  try {
    const answer = await app.inject({ method: 'GET', url: '/openapi.json' })
    if (answer.statusCode !== 200) throw new Error(`GET /openapi.json answered ${answer.statusCode}`)
    return `${JSON.stringify(JSON.parse(answer.body), null, 2)}\n`
  } finally {
    await app.close()
  }
}

/** The types openapi-typescript makes of an OpenAPI document (its JSON text). */
export const typesOf = async (openapi: string): Promise<string> => {
  if (!existsSync(GENERATOR)) throw new Error(`${GENERATOR} is missing: run \`npm install --prefix sdks/typescript\` first`)
  const dir = mkdtempSync(join(tmpdir(), 'sw-sdk-types-'))
  writeFileSync(join(dir, 'openapi.json'), openapi)
  // A request field with a default may be left out (by default openapi-typescript makes it required), and an object
  // the document leaves open (a recipe's input, a page's metadata) holds anything (by default: nothing).
  await promisify(execFile)(GENERATOR, [join(dir, 'openapi.json'), '-o', join(dir, 'schema.ts'), '--default-non-nullable=false', '--empty-objects-unknown'])
  return readFileSync(join(dir, 'schema.ts'), 'utf8')
}

/** The served document and the types made of it, as the files' contents. */
export const generateSdkTypes = async (): Promise<{ readonly openapi: string; readonly schema: string }> => {
  const openapi = await fetchServedOpenApi()
  return { openapi, schema: await typesOf(openapi) }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { openapi, schema } = await generateSdkTypes()
  writeFileSync(join(SDK_DIR, 'openapi.json'), openapi)
  writeFileSync(join(SDK_DIR, 'src/schema.ts'), schema)
  console.log(`wrote ${join(SDK_DIR, 'openapi.json')} and ${join(SDK_DIR, 'src/schema.ts')}`)
}
