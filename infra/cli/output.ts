/** What a command answers: one record, or a list of records shown as a table with these columns. */
export type CliResult =
  | { readonly kind: 'record'; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'list'; readonly rows: readonly Readonly<Record<string, unknown>>[]; readonly columns: readonly string[] }

export const record = (value: Readonly<Record<string, unknown>>): CliResult => ({ kind: 'record', value })
export const list = (rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[]): CliResult => ({ kind: 'list', rows, columns })

const cell = (value: unknown): string => {
  if (value === null || value === undefined) return '-'
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(',')
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** `--json`: the record as an object, a list as an array. Otherwise a record as `name  value` lines, a list as an aligned table. */
export const render = (result: CliResult, json: boolean): string => {
  if (json) return `${JSON.stringify(result.kind === 'record' ? result.value : result.rows)}\n`
  if (result.kind === 'record') {
    const entries = Object.entries(result.value)
    const width = Math.max(0, ...entries.map(([name]) => name.length))
    return entries.map(([name, value]) => `${name.padEnd(width)}  ${cell(value)}\n`).join('')
  }
  if (result.rows.length === 0) return '(none)\n'
  const table = [result.columns, ...result.rows.map((row) => result.columns.map((column) => cell(row[column])))]
  const widths = result.columns.map((_, i) => Math.max(...table.map((line) => line[i]!.length)))
  return table.map((line) => `${line.map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i]!))).join('  ')}\n`).join('')
}
