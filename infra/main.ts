import { loadConfig, parseRoles } from './config.js'
import { consoleLogger } from './logger.js'
import { startProcess } from './process.js'

/** Process entry point: `--roles api,fetcher,...` (or ROLES) selects what this process runs; all roles by default. */
const rolesArg = process.argv.find((a) => a.startsWith('--roles='))?.slice('--roles='.length)
  ?? (process.argv.includes('--roles') ? process.argv[process.argv.indexOf('--roles') + 1] : undefined)

const config = loadConfig(process.env)
const roles = rolesArg ? parseRoles(rolesArg) : config.roles
const logger = consoleLogger(config.logLevel)
const running = await startProcess(config, roles, logger)
logger.info(`scrapeworks started`, { roles, port: roles.includes('api') ? config.port : undefined, data_dir: config.dataDir })

let closing = false
const shutdown = async (signal: string) => {
  if (closing) return
  closing = true
  logger.info(`received ${signal}, shutting down`)
  const force = setTimeout(() => process.exit(1), 15_000)
  force.unref()
  await running.close()
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
