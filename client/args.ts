/** The command line of `scrapeworks`: words, then flags (`--name value`, `--name=value`, `-o value`), some repeatable. */

export class UsageError extends Error {}

export interface Args {
  readonly words: readonly string[]
  /** Every value of each flag, in order (a repeatable flag has several). */
  readonly flags: ReadonlyMap<string, readonly string[]>
  readonly switches: ReadonlySet<string>
}

/** Flags that take no value. */
const SWITCHES = new Set(['help', 'json'])
const SHORT: Readonly<Record<string, string>> = { o: 'output', h: 'help' }

export const parseArgs = (argv: readonly string[]): Args => {
  const words: string[] = []
  const flags = new Map<string, string[]>()
  const switches = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const long = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(arg)
    const short = /^-([a-z])$/.exec(arg)
    if (!long && !short) {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`)
      words.push(arg)
      continue
    }
    const name = long ? long[1]! : SHORT[short![1]!]
    if (!name) throw new UsageError(`unknown option ${arg}`)
    if (SWITCHES.has(name)) { switches.add(name); continue }
    const value = long?.[2] ?? argv[++i]
    if (value === undefined) throw new UsageError(`${arg} needs a value`)
    flags.set(name, [...(flags.get(name) ?? []), value])
  }
  return { words, flags, switches }
}

/** Fails on a flag the command does not take, so a typo is never silently ignored. */
export const onlyFlags = (args: Args, allowed: readonly string[]) => {
  for (const name of args.flags.keys()) if (!allowed.includes(name)) throw new UsageError(`--${name} is not an option of this command`)
}

/** The single value of a flag (the last one when repeated), or undefined. */
export const flag = (args: Args, name: string): string | undefined => args.flags.get(name)?.at(-1)

export const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T => {
  if (value === undefined) return fallback
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`)
  return value as T
}

export const positiveInteger = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`)
  return n
}

/** `NAME=VALUE` pairs of a repeatable flag. */
export const pairs = (args: Args, name: string, separator = '='): [string, string][] =>
  (args.flags.get(name) ?? []).map((pair) => {
    const at = pair.indexOf(separator)
    if (at <= 0) throw new UsageError(`--${name} takes NAME${separator}VALUE, got ${JSON.stringify(pair)}`)
    return [pair.slice(0, at), pair.slice(at + separator.length)]
  })
