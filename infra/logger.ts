export interface Logger {
  info: (msg: string, detail?: unknown) => void
  warn: (msg: string, detail?: unknown) => void
  error: (msg: string, detail?: unknown) => void
}

/** One JSON line per message on stderr; `silent` writes nothing, `warn` and `error` leave out info. */
export const consoleLogger = (level: string): Logger => {
  const quiet = level === 'silent'
  const write = (lvl: string) => (msg: string, detail?: unknown) => {
    if (quiet) return
    const line = { level: lvl, time: new Date().toISOString(), msg, ...(detail !== undefined ? { detail: detail instanceof Error ? detail.message : detail } : {}) }
    process.stderr.write(`${JSON.stringify(line)}\n`)
  }
  return { info: level === 'info' || level === 'debug' ? write('info') : () => {}, warn: write('warn'), error: write('error') }
}
