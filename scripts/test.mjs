#!/usr/bin/env node
// Runs the whole suite with tap and ends with the line `N passed, N failed` (counted over every assertion).
import { spawn } from 'node:child_process'

// With no arguments tap runs every test/**/*.test.ts (package.json "tap.include").
const files = process.argv.slice(2)
const child = spawn('npx', ['tap', '--reporter=tap', ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() },
})
let passed = 0
let failed = 0
let skipped = 0
let buffer = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  buffer += chunk
  let i
  while ((i = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, i)
    buffer = buffer.slice(i + 1)
    // Count leaf assertions only: a subtest's own summary line is followed by "# Subtest" children, so count by indentation-less totals below.
    const summary = line.match(/^# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?/)
    if (summary) {
      passed = Number(summary[2] ?? 0)
      failed = Number(summary[3] ?? 0)
      skipped = Number(summary[4] ?? 0)
    }
  }
})
child.on('close', (code) => {
  // tap's summary counts test files; a crashed run without a summary is a failure.
  if (passed + failed === 0 && code !== 0) failed = 1
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(code ?? 1)
})
