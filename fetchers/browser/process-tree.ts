import { readdir, readFile } from 'node:fs/promises'
import { MARKER_SWITCH } from './launch-flags.js'

/** Linux /proc readers for browser processes. Elsewhere they find nothing, and memory-based recycling is off. */

interface ProcInfo { readonly pid: number; readonly ppid: number; readonly rssKb: number }

const PAGE_KB = 4

const readProc = async (pid: number): Promise<ProcInfo | undefined> => {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const rssPages = Number(fields[21] ?? 0)
    return { pid, ppid: Number(fields[1] ?? 0), rssKb: rssPages * PAGE_KB }
  } catch {
    return undefined
  }
}

const allPids = async (): Promise<number[]> => {
  try {
    return (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number)
  } catch {
    return []
  }
}

const cmdline = async (pid: number): Promise<string[]> => {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
  } catch {
    return []
  }
}

export interface BrowserProcess { readonly pid: number; readonly ppid: number; readonly id: string }

/** Main browser processes (not renderers or helpers, which carry `--type=`) started with the marker switch. */
export const listBrowserProcesses = async (): Promise<BrowserProcess[]> => {
  const found: BrowserProcess[] = []
  for (const pid of await allPids()) {
    const args = await cmdline(pid)
    const marker = args.find((a) => a.startsWith(`${MARKER_SWITCH}=`))
    if (!marker || args.some((a) => a.startsWith('--type='))) continue
    const info = await readProc(pid)
    if (info) found.push({ pid, ppid: info.ppid, id: marker.slice(MARKER_SWITCH.length + 1) })
  }
  return found
}

/** The browser processes this Node process launched (both drivers start Chromium as a direct child). */
export const ownBrowserProcesses = async (): Promise<BrowserProcess[]> =>
  (await listBrowserProcesses()).filter((p) => p.ppid === process.pid)

export const findBrowserPid = async (id: string): Promise<number | undefined> =>
  (await listBrowserProcesses()).find((p) => p.id === id)?.pid

/** Resident memory of a process and all its descendants (renderers, GPU and utility processes), in MB. */
export const treeRssMb = async (rootPid: number): Promise<number> => {
  const infos = (await Promise.all((await allPids()).map(readProc))).filter((p): p is ProcInfo => p !== undefined)
  const children = new Map<number, ProcInfo[]>()
  for (const info of infos) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info])
  const root = infos.find((p) => p.pid === rootPid)
  if (!root) return 0
  let totalKb = 0
  const stack = [root]
  while (stack.length > 0) {
    const next = stack.pop()!
    totalKb += next.rssKb
    stack.push(...(children.get(next.pid) ?? []))
  }
  return totalKb / 1024
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
