/**
 * Body of the worker thread that runs hook patterns. Kept as plain JavaScript source (run with
 * `eval: true`) so it needs no TypeScript loader and no separate build output.
 * The worker keeps the last text it was sent, so a job's regex hooks ship the page text once.
 */
export const REGEX_WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
let text = ''
parentPort.on('message', (task) => {
  if (typeof task.text === 'string') text = task.text
  try {
    const re = new RegExp(task.pattern, task.flags)
    const values = []
    let total = 0
    // matchAll steps past empty matches, so patterns like a* cannot loop forever.
    for (const match of text.matchAll(re)) {
      total++
      if (values.length < task.take) values.push(match[task.group] ?? null)
    }
    parentPort.postMessage({ id: task.id, total, values })
  } catch (e) {
    parentPort.postMessage({ id: task.id, error: String((e && e.message) || e) })
  }
})
`
