/**
 * The diff a user sees and the change ratio computed from that same diff. Both read normalized lines
 * (normalize.ts). The ratio is
 *
 *   change_ratio = (inserted tokens + deleted tokens) / max(old tokens, new tokens), capped at 1
 *
 * where a token is a whitespace-separated word of a normalized line and the inserted (deleted) tokens are the
 * words of the lines shown with `+` (`-`). JSON lines are matched by their path without array indices (matchKey). Diffing is bounded: past MAX_EDIT_LENGTH edits or DIFF_TIMEOUT_MS the
 * diff is every old line removed and every new line added, with ratio 1.
 */
import { diffArrays } from 'diff'

/** Line edits beyond which a change counts as total (deterministic, unlike the time bound). */
export const MAX_EDIT_LENGTH = 1_000
/** A safety net for pathological inputs; MAX_EDIT_LENGTH normally ends a big diff first. */
export const DIFF_TIMEOUT_MS = 2_000

export interface ContentDiff {
  /** Changed lines in document order, each prefixed `-` (removed) or `+` (added). Never empty for a change. */
  readonly lines: readonly string[]
  readonly inserted_tokens: number
  readonly deleted_tokens: number
  readonly change_ratio: number
  /** True when the bound was hit and the diff is the whole old content against the whole new content. */
  readonly truncated: boolean
}

export const tokenCount = (lines: readonly string[]): number =>
  lines.reduce((sum, line) => sum + line.split(' ').filter((word) => word !== '').length, 0)

const ratio = (changed: number, oldTokens: number, newTokens: number): number => {
  const base = Math.max(oldTokens, newTokens)
  if (changed === 0) return 0
  return base === 0 ? 1 : Math.min(1, Math.round((changed / base) * 10_000) / 10_000)
}

/** Every old line removed and every new line added, ratio 1: the diff past the bounds. */
export const totalDiff = (before: readonly string[], after: readonly string[]): ContentDiff => ({
  lines: [...before.map((line) => `-${line}`), ...after.map((line) => `+${line}`)],
  inserted_tokens: tokenCount(after), deleted_tokens: tokenCount(before), change_ratio: 1, truncated: true,
})

/**
 * A canonical JSON line's path without its array indices (`$.items[3].id: 1` reads `$.items[].id: 1`): lines are
 * matched by this, so an item inserted into an array is shown as the item's lines added, not as every later index
 * renamed. Text lines have no such path and are matched as written.
 */
const JSON_PATH = /^\$(?:\.[\w$]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*(?=: )/
const matchKey = (line: string) => line.replace(JSON_PATH, (path) => path.replace(/\[\d+\]/g, '[]'))

const edits = (before: readonly string[], after: readonly string[], keyOf: (line: string) => string) => {
  const changes = diffArrays(before.map(keyOf), after.map(keyOf), { maxEditLength: MAX_EDIT_LENGTH, timeout: DIFF_TIMEOUT_MS })
  if (changes === undefined) return undefined
  // The changes hold match keys: walk both sides to show the real lines (with their indices) of each edit.
  const lines: string[] = []
  let inserted = 0
  let deleted = 0
  let i = 0
  let j = 0
  for (const change of changes) {
    const count = change.value.length
    if (change.added) {
      const value = after.slice(j, j + count)
      inserted += tokenCount(value)
      lines.push(...value.map((line) => `+${line}`))
      j += count
    } else if (change.removed) {
      const value = before.slice(i, i + count)
      deleted += tokenCount(value)
      lines.push(...value.map((line) => `-${line}`))
      i += count
    } else {
      i += count
      j += count
    }
  }
  return { lines, inserted, deleted }
}

export const diffLines = (before: readonly string[], after: readonly string[]): ContentDiff => {
  // Lines that differ only by array indices match by key but still differ: then the exact lines are diffed.
  const byKey = edits(before, after, matchKey)
  const found = byKey !== undefined && byKey.lines.length === 0 && before.join('\n') !== after.join('\n') ? edits(before, after, (line) => line) : byKey
  if (found === undefined) return totalDiff(before, after)
  return {
    lines: found.lines, inserted_tokens: found.inserted, deleted_tokens: found.deleted,
    change_ratio: ratio(found.inserted + found.deleted, tokenCount(before), tokenCount(after)), truncated: false,
  }
}
