import { readFileSync } from 'node:fs'

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

const ticksOf = (pid: number, thread?: number): number => {
  // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime, stime
}

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch { return [] }
}

/**
 * CPU milliseconds (user + system) a process has used so far, of which its main thread (the one whose time bounds a
 * Node service's throughput), and separately what its child processes (the light tier's client) have; null where /proc
 * is missing (not Linux). The bench's figure that a shared machine does not distort.
 */
export const processCpuMs = (pid: number): { readonly own: number; readonly mainThread: number; readonly children: number } | null => {
  try {
    const children = childrenOf(pid).reduce((sum, child) => sum + ticksOf(child), 0)
    return {
      own: (ticksOf(pid) * 1000) / TICKS_PER_SECOND, mainThread: (ticksOf(pid, pid) * 1000) / TICKS_PER_SECOND,
      children: (children * 1000) / TICKS_PER_SECOND,
    }
  } catch { return null }
}

/**
 * Resolves once the process has been nearly idle (under 5% of a core) for half a second, or after `limitMs`: a
 * service's start-up work (worker threads loading their code) must not be counted as the first measured jobs' cost.
 */
export const settled = async (pid: number, limitMs = 30_000): Promise<void> => {
  const until = Date.now() + limitMs
  while (Date.now() < until) {
    const before = processCpuMs(pid)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const after = processCpuMs(pid)
    if (!before || !after || after.own - before.own < 25) return
  }
}
