// Builds the dashboard (web/) into web/dist/, which the api role serves at /app. Run by `npm install` (prepare) and
// `npm start`; the output is not committed.
import { copyFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const web = join(dirname(fileURLToPath(import.meta.url)), '..', 'web')
const out = join(web, 'dist')
mkdirSync(out, { recursive: true })
await build({
  entryPoints: [join(web, 'src', 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  sourcemap: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
})
for (const file of ['index.html', 'style.css']) copyFileSync(join(web, file), join(out, file))
