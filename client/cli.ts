/**
 * `scrapeworks`, the user's command: a client of the public v1 API (http.ts), nothing of the service inside it.
 * Results go to stdout (or -o FILE), progress and errors to stderr, one line each; exit codes in http.ts (EXIT).
 */
import { writeFileSync } from 'node:fs'
import { parseArgs, UsageError, flag, type Args } from './args.js'
import { CLIENT_COMMANDS } from './commands.js'
import { ApiError, DEFAULT_BASE_URL, EXIT, makeApi } from './http.js'
import type { Output } from './scrape.js'

const usage = [
  'usage: scrapeworks COMMAND [options]',
  ...CLIENT_COMMANDS.map((c) => `  ${c.usage}`),
  '',
  'Every command takes -o FILE (write the result there instead of stdout).',
  `Environment: SCRAPEWORKS_API_KEY (required), SCRAPEWORKS_URL (default ${DEFAULT_BASE_URL}).`,
  'Exit codes: 0 done, 1 the API refused or the job failed, 2 bad usage, 3 the key was refused, 4 rate limited.',
  'Operator commands (org, key, user, replay, purge, audit, recipes lint) work on the service\'s own data: scrapeworks org --help.',
].join('\n')

const encoder = new TextEncoder()
const bytesOf = (output: Output): Uint8Array =>
  'bytes' in output ? output.bytes : encoder.encode('text' in output ? output.text : `${JSON.stringify(output.json, null, 2)}\n`)

const write = (output: Output, file: string | undefined) => {
  const bytes = bytesOf(output)
  if (file !== undefined) {
    writeFileSync(file, bytes)
    process.stderr.write(`wrote ${bytes.byteLength} bytes to ${file}\n`)
    return
  }
  process.stdout.write(bytes)
  // A terminal's prompt would otherwise follow the content on its last line.
  if (bytes.byteLength > 0 && bytes[bytes.byteLength - 1] !== 0x0a) process.stdout.write('\n')
}

export const main = async (argv: readonly string[]): Promise<number> => {
  let args: Args
  try {
    args = parseArgs(argv)
    if (args.switches.has('help') || args.words.length === 0 || args.words[0] === 'help') {
      process.stdout.write(`${usage}\n`)
      return 0
    }
    const words = args.words
    const command = CLIENT_COMMANDS.find((c) => c.words.every((word, i) => words[i] === word))
    if (!command) throw new UsageError(`unknown command: ${words.slice(0, 2).join(' ')}`)
    const apiKey = process.env.SCRAPEWORKS_API_KEY
    if (!apiKey) throw new UsageError('SCRAPEWORKS_API_KEY is not set (an API key of your organization)')
    const api = makeApi(process.env.SCRAPEWORKS_URL || DEFAULT_BASE_URL, apiKey)
    const output = await command.run(api, args, (line) => process.stderr.write(`${line}\n`))
    write(output, flag(args, 'output'))
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message} (scrapeworks --help lists the commands)\n`)
      return EXIT.usage
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${error.message}\n`)
      return error.exitCode
    }
    process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`)
    return EXIT.failed
  }
}

process.exitCode = await main(process.argv.slice(2))
