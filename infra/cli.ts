import { ManagedRuntime } from 'effect'
import { AUDIT_USAGE, auditCommand } from './audit-cli.js'
import { appLayer } from './app-layer.js'
import { UsageError, onlyFlags, parseArgs, type Args } from './cli/args.js'
import { maintenanceCommands } from './cli/maintenance.js'
import { OPERATOR_COMMANDS, type CliCommand } from './cli/operator.js'
import { render } from './cli/output.js'
import { environment, loadConfig, type Config } from './config.js'
import { promiseRunner } from './runtime.js'
import { DEFAULT_RECIPES_DIR, lintFile, recipeFiles } from './recipes.js'

/** Tagged errors that mean the input names something wrong (unknown organization, taken address): bad input, exit 2. */
const INPUT_ERRORS = new Set(['ValidationFailed', 'NotFound', 'StateConflict', 'Forbidden', 'Unauthenticated'])

/** Lints the given recipe files (default: every recipe of RECIPES_DIR); exit code 1 when any has a problem. */
const lintRecipes = (files: readonly string[]) => {
  const linted = (files.length > 0 ? files : recipeFiles(environment().RECIPES_DIR || DEFAULT_RECIPES_DIR)).map(lintFile)
  for (const { file, problems } of linted) {
    if (problems.length === 0) process.stdout.write(`ok ${file}\n`)
    for (const problem of problems) process.stdout.write(`${file}: ${problem.pointer || '/'} ${problem.message}\n`)
  }
  process.exitCode = linted.some((l) => l.problems.length > 0) ? 1 : 0
}

let config: Config | undefined
/** Read on first use: neither --help nor bad input reads the data folder, let alone writes a signing secret into it. */
const loadedConfig = () => (config ??= loadConfig(environment()))

/** `cli audit ...` works on the files themselves (the event store's, the keys'), without the service's runtime. */
const audit = (args: readonly string[]) => {
  try {
    const c = loadedConfig()
    process.stderr.write(`using ${dataLocation(c)}\n`)
    if (auditCommand([...args], c)) return
    process.stderr.write(`${usage}\n`)
    process.exitCode = 2
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`)
    process.exitCode = 1
  }
}

const COMMANDS: readonly CliCommand[] = [...OPERATOR_COMMANDS, ...maintenanceCommands(loadedConfig)]

const usage = [
  'usage: npm run cli -- COMMAND [--json]',
  ...COMMANDS.map((c) => `  ${c.usage}`),
  '  recipes lint [FILE...]',
  ...AUDIT_USAGE.split('\n').map((line) => `  ${line.trim().replace(/^cli /, '')}`),
  '',
  'The CLI reads .env in the working directory (environment variables win), as `npm start` does, and names the data it',
  'uses on stderr. --json prints JSON (an object, or an array for lists); otherwise a readable table.',
  'Lists show what the read models hold: the running service keeps them current (or run `cli replay` with it stopped).',
].join('\n')

const commandOf = (args: Args) => {
  const command = COMMANDS.find((c) => c.words.every((word, i) => args.words[i] === word) && args.words.length === c.words.length)
  if (!command) throw new UsageError(args.words.length === 0 ? 'no command given' : `unknown command: ${args.words.join(' ')}`)
  onlyFlags(args, command.flags)
  return command
}

/** Where the data lives, without any credential a connection string may hold. */
const dataLocation = (c: Config) => {
  const { eventStore, documents, blobs } = c.adapters
  return eventStore.kind === 'sqlite' && documents.kind === 'sqlite' && blobs.kind === 'local'
    ? `data folder ${c.dataDir}`
    : `event store ${eventStore.kind}, read models ${documents.kind}, artifacts ${blobs.kind}${eventStore.kind === 'sqlite' ? ` (data folder ${c.dataDir})` : ''}`
}

const messageOf = (error: unknown) => {
  const tagged = error as { _tag?: string; errors?: readonly { field: string; message: string }[]; resource?: string; id?: string; message?: string; code?: string }
  // Tagged domain errors carry their facts in fields, not in a message.
  if (tagged._tag === 'ValidationFailed') return tagged.errors?.map((e) => `${e.field}: ${e.message}`).join('; ') ?? 'invalid input'
  if (tagged._tag === 'NotFound') return `${tagged.resource} ${tagged.id} not found`
  if (tagged.code && tagged.message) return `${tagged.message} (${tagged.code})`
  return (error as Error).message || JSON.stringify(error)
}

const main = async (argv: readonly string[]) => {
  let args: Args
  let command: CliCommand
  let prepared: ReturnType<CliCommand['prepare']>
  try {
    args = parseArgs(argv)
    if (args.switches.has('help') || args.words[0] === 'help') {
      process.stdout.write(`${usage}\n`)
      return
    }
    if (args.words[0] === 'recipes' && args.words[1] === 'lint') return lintRecipes(args.words.slice(2))
    if (argv[0] === 'audit') return audit(argv.slice(1))
    command = commandOf(args)
    prepared = command.prepare(args)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`error: ${error.message} (npm run cli -- --help lists the commands)\n`)
    process.exitCode = 2
    return
  }
  let c: Config
  try {
    c = loadedConfig()
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`)
    process.exitCode = 1
    return
  }
  process.stderr.write(`using ${dataLocation(c)}\n`)
  const runtime = ManagedRuntime.make(appLayer(c, (m, d) => process.stderr.write(`${m} ${d ?? ''}\n`)))
  const metadata = { correlation_id: `cli-${Date.now()}`, causation_id: null, actor: 'cli' }
  try {
    const result = await prepared({ run: promiseRunner(runtime.runPromiseExit), metadata, defaultPlan: c.defaultPlan })
    process.stdout.write(render(result, args.switches.has('json')))
  } catch (error) {
    const input = INPUT_ERRORS.has((error as { _tag?: string })._tag ?? '')
    process.stderr.write(`error: ${messageOf(error)}\n`)
    process.exitCode = input ? 2 : 1
  } finally {
    await runtime.dispose()
  }
}

await main(process.argv.slice(2))
