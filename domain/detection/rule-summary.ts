/**
 * The built-in summary of a change, made from its diff without any network: edited lines read as
 * "Price changed from $129.99 to $119.99", the rest is counted ("2 lines added"). At most MAX_PHRASES edits are
 * spelled out; the counts cover the rest.
 */
const MAX_PHRASES = 3
const MAX_QUOTE = 80

const quote = (words: readonly string[]) => {
  const text = words.join(' ')
  return text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE - 1)}…` : text
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

/** One edited line: the words both versions share at the start name what changed. */
const edit = (before: string, after: string): string => {
  const a = before.split(' ')
  const b = after.split(' ')
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let end = 0
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  const from = a.slice(start, a.length - end)
  const to = b.slice(start, b.length - end)
  const subject = a.slice(0, start).join(' ').replace(/:$/, '')
  if (subject === '') return `"${quote(a)}" changed to "${quote(b)}"`
  if (from.length === 0) return `${subject}: "${quote(to)}" added`
  if (to.length === 0) return `${subject}: "${quote(from)}" removed`
  return `${subject} changed from ${quote(from)} to ${quote(to)}`
}

export const ruleSummary = (diff: readonly string[]): string => {
  const phrases: string[] = []
  let added = 0
  let removed = 0
  let i = 0
  while (i < diff.length) {
    const removedRun: string[] = []
    while (i < diff.length && diff[i].startsWith('-')) removedRun.push(diff[i++].slice(1))
    const addedRun: string[] = []
    while (i < diff.length && diff[i].startsWith('+')) addedRun.push(diff[i++].slice(1))
    if (removedRun.length === 0 && addedRun.length === 0) { i++; continue }
    const paired = Math.min(removedRun.length, addedRun.length)
    for (let k = 0; k < paired; k++) {
      if (phrases.length < MAX_PHRASES) phrases.push(edit(removedRun[k], addedRun[k]))
      else { added++; removed++ }
    }
    added += addedRun.length - paired
    removed += removedRun.length - paired
  }
  const counts = [...(added > 0 ? [`${plural(added, 'line')} added`] : []), ...(removed > 0 ? [`${plural(removed, 'line')} removed`] : [])]
  const summary = [...phrases, ...counts].join('; ')
  return summary === '' ? 'The content changed' : summary
}
