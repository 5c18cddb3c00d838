import { rmSync } from 'node:fs'
import { tempDataDir } from '../test/helpers/service.js'

/** A temporary data folder for one bench run, removed when the bench exits (also when it fails half-way). */
export const benchDataDir = (label: string): string => {
  const dir = tempDataDir(label)
  if (!process.env.BENCH_KEEP_DATA) process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}
