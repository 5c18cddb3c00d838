import { useState } from 'preact/hooks'

/** One row of the side-by-side view: a removed line and the added line that took its place (either may be absent). */
interface Row { readonly removed: string | null; readonly added: string | null }

/**
 * The API's diff holds only changed lines in document order, `-` removed and `+` added; a run of removals followed by
 * a run of additions is one replacement, shown on the same rows side by side.
 */
const rowsOf = (lines: readonly string[]): Row[] => {
  const rows: Row[] = []
  for (let i = 0; i < lines.length;) {
    const removed: string[] = []
    const added: string[] = []
    while (i < lines.length && lines[i]!.startsWith('-')) removed.push(lines[i++]!.slice(1))
    while (i < lines.length && lines[i]!.startsWith('+')) added.push(lines[i++]!.slice(1))
    if (removed.length === 0 && added.length === 0) { rows.push({ removed: lines[i]!, added: lines[i]! }); i++; continue }
    for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ removed: removed[k] ?? null, added: added[k] ?? null })
  }
  return rows
}

export const DiffView = ({ diff }: { diff: string }) => {
  const [layout, setLayout] = useState<'inline' | 'side'>('inline')
  const lines = diff.split('\n').filter((line) => line !== '')
  return (
    <div class="diff">
      <div class="diff-layout" role="group" aria-label="Diff layout">
        <button type="button" aria-pressed={layout === 'inline'} onClick={() => setLayout('inline')}>Inline</button>
        <button type="button" aria-pressed={layout === 'side'} onClick={() => setLayout('side')}>Side by side</button>
      </div>
      {layout === 'inline' ? (
        <pre class="code diff-inline">
          {lines.map((line, i) => (
            <div key={i} class={line.startsWith('-') ? 'del' : line.startsWith('+') ? 'ins' : ''}>
              <span class="sr-only">{line.startsWith('-') ? 'removed: ' : line.startsWith('+') ? 'added: ' : ''}</span>{line}
            </div>
          ))}
        </pre>
      ) : (
        <div class="table-wrap">
          <table class="diff-side">
            <thead><tr><th scope="col">Before</th><th scope="col">After</th></tr></thead>
            <tbody>
              {rowsOf(lines).map((row, i) => (
                <tr key={i}>
                  <td class={row.removed !== null ? 'del' : ''}>{row.removed ?? ''}</td>
                  <td class={row.added !== null ? 'ins' : ''}>{row.added ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
