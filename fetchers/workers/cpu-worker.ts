/**
 * A worker thread of the CPU pool (fair-pool.ts): loads the task code, says `ready` (so start-up is never charged to
 * a task's deadline), then runs one task per message and answers it.
 */
import { parentPort } from 'node:worker_threads'
import { runTask, type CpuTask } from './tasks.js'

const port = parentPort!
port.on('message', async (message: { readonly id: number; readonly task: CpuTask }) => {
  try {
    const value = await runTask(message.task)
    // Bytes are moved to the main thread rather than copied: a large page's result costs it nothing.
    port.postMessage({ id: message.id, ok: true, value }, value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : [])
  } catch (e) {
    port.postMessage({ id: message.id, ok: false, error: (e as Error)?.message ?? String(e) })
  }
})
port.postMessage({ ready: true })
