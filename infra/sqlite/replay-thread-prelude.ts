/**
 * The first lines of replay's helper threads (plain JavaScript run with `eval: true`): the worker's channel, the
 * SQLite driver, and a lower priority. The process's main thread folds the log and is the replay's bottleneck: where a
 * helper thread and it contend for a core, it goes first. On Linux the call sets the calling thread's nice value only
 * (elsewhere it could set the whole process's, so it is not made there).
 */
export const REPLAY_THREAD_PRELUDE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
if (process.platform === 'linux') try { require('node:os').setPriority(10) } catch {}
`
