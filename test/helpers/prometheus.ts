/** Reads a Prometheus text exposition: the sum of the samples of `name` whose labels include `labels`. */
export const sampleOf = (text: string, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  let sum = 0
  let found = false
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]))
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) {
      sum += Number(match[3])
      found = true
    }
  }
  return found ? sum : Number.NaN
}
