#!/usr/bin/env node
// Runs the whole suite with tap and ends with the line `N passed, N failed` (counted over every assertion). Before
// that line it repeats every failing assertion with the subtests it sits in and its diagnostics, because CI keeps
// only the tail of a run's output.
import { spawn } from 'node:child_process'

// With no arguments tap runs every test/**/*.test.ts (package.json "tap.include").
const files = process.argv.slice(2)
const child = spawn('npx', ['tap', '--reporter=tap', ...files], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=4096`.trim() },
})
let passed = 0
let failed = 0
let skipped = 0
let buffer = ''
// The open subtests, one per indentation level of four spaces.
const subtests = []
const failures = []
// The YAML diagnostics block of the last failing assertion, while it is being read.
let diagnostics

function read(line) {
  const indent = line.length - line.trimStart().length
  const level = Math.floor(indent / 4)
  const text = line.trimStart()
  if (diagnostics) {
    diagnostics.push(line)
    if (text === '...') diagnostics = undefined
    return
  }
  const subtest = text.match(/^# Subtest: (.*)/)
  if (subtest) {
    subtests.length = level
    subtests[level] = subtest[1]
    return
  }
  // A subtest's own `not ok` repeats its failing children; only leaves (and crashed files) are reported.
  const notOk = text.match(/^not ok \d+ - (.*?)(?: # time=.*)?$/)
  if (notOk) {
    const path = subtests.slice(0, level)
    const leaf = subtests[level] !== notOk[1]
    if (leaf || !failures.some((f) => f.path.join('\0').startsWith([...path, notOk[1]].join('\0')))) {
      diagnostics = []
      failures.push({ path: [...path, notOk[1]], diagnostics })
    }
  }
  const summary = line.match(/^# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?(?:, skip: (\d+))?/)
  if (summary) {
    passed = Number(summary[2] ?? 0)
    failed = Number(summary[3] ?? 0)
    skipped = Number(summary[4] ?? 0)
  }
}

// A test file that throws outside a subtest reports no failing assertion, only its exit code; what it printed on
// stderr is the only cause, so the last lines are repeated with the failures.
const STDERR_KEPT = 60
const stderrTail = []
let stderrBuffer = ''
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk)
  stderrBuffer += chunk
  const lines = stderrBuffer.split('\n')
  stderrBuffer = lines.pop()
  stderrTail.push(...lines)
  stderrTail.splice(0, Math.max(0, stderrTail.length - STDERR_KEPT))
})
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  buffer += chunk
  let i
  while ((i = buffer.indexOf('\n')) >= 0) {
    read(buffer.slice(0, i))
    buffer = buffer.slice(i + 1)
  }
})
child.on('close', (code) => {
  if (failures.length > 0) {
    console.log(`\n# failing assertions (${failures.length}):`)
    for (const { path, diagnostics: lines } of failures) {
      console.log(`# ✗ ${path.join(' › ')}`)
      const margin = lines[0]?.indexOf('---') ?? 0
      for (const line of lines.slice(0, 40)) console.log(`#     ${line.slice(margin).trimEnd()}`)
    }
    if (stderrTail.length > 0) {
      console.log(`\n# the last ${stderrTail.length} lines on stderr:`)
      for (const line of stderrTail) console.log(`#   ${line.trimEnd()}`)
    }
  }
  // tap's summary counts test files; a crashed run without a summary is a failure.
  if (passed + failed === 0 && code !== 0) failed = 1
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(code ?? 1)
})
