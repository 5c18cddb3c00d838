/** Bad input on the command line: one line on stderr, exit code 2, nothing read or written. */
export class UsageError extends Error {}

/** Flags that take no value. */
const SWITCHES = new Set(['json', 'dry-run', 'help'])

export interface Args {
  /** The words before the flags (`org create`) and any after them (`recipes lint FILE…`). */
  readonly words: readonly string[]
  readonly flags: ReadonlyMap<string, string>
  readonly switches: ReadonlySet<string>
}

export const parseArgs = (argv: readonly string[]): Args => {
  const words: string[] = []
  const flags = new Map<string, string>()
  const switches = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '-h') { switches.add('help'); continue }
    if (!arg.startsWith('--')) { words.push(arg); continue }
    const name = arg.slice(2)
    if (SWITCHES.has(name)) { switches.add(name); continue }
    const value = argv[i + 1]
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`)
    if (flags.has(name)) throw new UsageError(`--${name} is given twice`)
    flags.set(name, value)
    i++
  }
  return { words, flags, switches }
}

/** The flags a command accepts; any other is refused, so a typo never passes unnoticed. */
export const onlyFlags = (args: Args, allowed: readonly string[]) => {
  const unknown = [...args.flags.keys()].find((name) => !allowed.includes(name))
  if (unknown !== undefined) throw new UsageError(`unknown flag --${unknown} (this command takes ${allowed.length > 0 ? allowed.map((a) => `--${a}`).join(', ') : 'no flags'})`)
}

export const required = (args: Args, name: string): string => {
  const value = args.flags.get(name)
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value
}

export const oneOf = <T extends string>(value: string, allowed: readonly T[], name: string): T => {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} takes one of ${allowed.join(', ')}, got ${value}`)
  return value as T
}

export const positiveInteger = (args: Args, name: string): number | undefined => {
  const value = args.flags.get(name)
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${name} takes a whole number of at least 1, got ${value}`)
  return n
}
