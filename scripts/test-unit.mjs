#!/usr/bin/env node
// Runs the fast tests (test/unit/ and the in-memory contract run) in this one Node process, one file after the other,
// and ends with the line `N passed, N failed`. One process instead of tap's process per file: starting a process that
// loads TypeScript, tap and effect costs more CPU than most of these files' own work.
// Started by `npm run test:unit`, which adds the TypeScript loader (tsx) and tap's module mocking.
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Every folder under test/unit (monitors/, detection/, ...), not only its top.
const unit = readdirSync(join(root, 'test/unit'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts')).sort().map((f) => join(root, 'test/unit', f))
const files = [...unit, join(root, 'test/contract/memory.test.ts')]

// tap's limit for a file run on its own (30 s) would apply to them all together; keep the suite's per-file limit.
process.env.TAP_TIMEOUT ??= '300'
const { t } = await import('tap')
process.on('exit', () => console.log(`${t.counts.pass} passed, ${t.counts.fail} failed${t.counts.skip ? `, ${t.counts.skip} skipped` : ''}`))
for (const file of files) await import(pathToFileURL(file).href)
