import { environment, loadConfig, parseRoles, type Config } from './config.js'
import { consoleLogger } from './logger.js'
import { startProcess } from './process.js'
import { startupErrorOf } from './startup-error.js'
import { CLIENT_FIX, lightClientState } from '../fetchers/light/chromium-client.js'

/** A start the operator must fix (configuration, a port in use): one line and exit code 1, no stack trace. */
const refuse = (message: string): never => {
  process.stderr.write(`scrapeworks: ${message}\n`)
  process.exit(1)
}

/** Process entry point: `--roles api,fetcher,...` (or ROLES) selects what this process runs; all roles by default. */
const rolesArg = process.argv.find((a) => a.startsWith('--roles='))?.slice('--roles='.length)
  ?? (process.argv.includes('--roles') ? process.argv[process.argv.indexOf('--roles') + 1] : undefined)

let config: Config
let roles: Config['roles']
try {
  config = loadConfig(environment())
  roles = rolesArg ? parseRoles(rolesArg) : config.roles
} catch (error) {
  refuse((error as Error).message)
}
const logger = consoleLogger(config!.logLevel)
if (roles!.includes('fetcher') && lightClientState() === 'missing') {
  logger.warn(`the light tier's HTTP client is not built and Go is not installed: light jobs fail with tier_unavailable until you ${CLIENT_FIX}`)
}
const running = await startProcess(config!, roles!, logger).catch((error: unknown) => {
  const startup = startupErrorOf(error)
  if (startup) refuse(startup.message)
  throw error
})
logger.info(`scrapeworks started`, { roles: roles!, port: roles!.includes('api') ? config!.port : undefined, data_dir: config!.dataDir })

let closing = false
const shutdown = async (signal: string) => {
  if (closing) return
  closing = true
  logger.info(`received ${signal}, shutting down`)
  const force = setTimeout(() => process.exit(1), 15_000)
  force.unref()
  await running!.close()
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
