import { Effect, ManagedRuntime } from 'effect'
import { AUDIT_USAGE, auditCommand } from './audit-cli.js'
import { consoleLogger } from './logger.js'
import { purgeSweep } from './roles/purger.js'
import { createApiKey, createOrg, grantApiKeyScopes } from '../commands/orgs.js'
import { DEFAULT_KEY_LIMITS } from '../commands/orgs.js'
import { changeOrgPlan, setOrgIpAllowlist, setOrgSummaries } from '../commands/org-settings.js'
import { SCOPES } from '../domain/scopes.js'
import { loadConfig } from './config.js'
import { appLayer } from './app-layer.js'
import { promiseRunner } from './runtime.js'
import { ReadModels } from './read-models.js'
import { replayProjections } from './replay.js'
import { DEFAULT_RECIPES_DIR, lintFile, recipeFiles } from './recipes.js'

const usage = `usage:
  cli org create --name NAME --plan free|starter|pro|business|enterprise [--rate-limit-rpm N] [--daily-quota N]
  cli org ip-allowlist clear --org ORG_ID
  cli org set --org ORG_ID [--summaries on|off] [--plan free|starter|pro|business|enterprise]
  cli key grant --org ORG_ID --key KEY_ID --scopes SCOPE[,SCOPE...]
  cli replay
  cli recipes lint [FILE...]
  cli purge [--as-of ISO-TIME] [--dry-run]
${AUDIT_USAGE}`

const flag = (args: string[], name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}

const positiveFlag = (args: string[], name: string, field: string) => {
  const value = flag(args, name)
  if (value === undefined) return {}
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} takes a whole number of at least 1`)
  return { [field]: n }
}

/** Lints the given recipe files (default: every recipe of RECIPES_DIR); exit code 1 when any has a problem. */
const lintRecipes = (files: string[]) => {
  const linted = (files.length > 0 ? files : recipeFiles(process.env.RECIPES_DIR || DEFAULT_RECIPES_DIR)).map(lintFile)
  for (const { file, problems } of linted) {
    if (problems.length === 0) process.stdout.write(`ok ${file}\n`)
    for (const problem of problems) process.stdout.write(`${file}: ${problem.pointer || '/'} ${problem.message}\n`)
  }
  process.exitCode = linted.some((l) => l.problems.length > 0) ? 1 : 0
}

/** `cli audit ...` works on the files themselves (the event store's, the keys'), without the service's runtime. */
const audit = (args: string[]) => {
  try {
    if (auditCommand(args, loadConfig(process.env))) return
    process.stderr.write(`${usage}\n`)
    process.exitCode = 2
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`)
    process.exitCode = 1
  }
}

const main = async (args: string[]) => {
  if (args[0] === 'recipes' && args[1] === 'lint') return lintRecipes(args.slice(2))
  if (args[0] === 'audit') return audit(args.slice(1))
  const config = loadConfig(process.env)
  const runtime = ManagedRuntime.make(appLayer(config, (m, d) => process.stderr.write(`${m} ${d ?? ''}\n`)))
  const run = promiseRunner(runtime.runPromiseExit)
  const metadata = { correlation_id: `cli-${Date.now()}`, causation_id: null, actor: 'cli' }
  try {
    if (args[0] === 'org' && args[1] === 'create') {
      const name = flag(args, 'name')
      const plan = flag(args, 'plan') ?? 'free'
      if (!name) throw new Error('--name is required')
      const { org_id } = await run(createOrg({ name, plan, metadata }))
      // The first key bounds every key made from it (a key never creates a wider one), so the operator sets its limits here.
      const limits = { ...DEFAULT_KEY_LIMITS, ...positiveFlag(args, 'rate-limit-rpm', 'rate_limit_rpm'), ...positiveFlag(args, 'daily-quota', 'daily_quota') }
      const key = await run(createApiKey({ org_id, name: 'default', scopes: SCOPES, limits, expires_at: null, metadata }))
      process.stdout.write(`${JSON.stringify({ org_id, api_key: key.secret })}\n`)
    } else if (args[0] === 'org' && args[1] === 'ip-allowlist' && args[2] === 'clear') {
      const orgId = flag(args, 'org')
      if (!orgId) throw new Error('--org is required')
      await run(setOrgIpAllowlist({ org_id: orgId, ip_allowlist: [], metadata }))
      process.stdout.write(`${JSON.stringify({ org_id: orgId, ip_allowlist: [] })}\n`)
    } else if (args[0] === 'org' && args[1] === 'set') {
      const orgId = flag(args, 'org')
      const summaries = flag(args, 'summaries')
      const plan = flag(args, 'plan')
      if (!orgId) throw new Error('--org is required')
      if (summaries === undefined && plan === undefined) throw new Error('org set takes --summaries on|off and/or --plan NAME')
      if (summaries !== undefined && summaries !== 'on' && summaries !== 'off') throw new Error('--summaries takes on or off')
      const now = new Date().toISOString()
      if (summaries !== undefined) await run(setOrgSummaries({ org_id: orgId, enabled: summaries === 'on', now, metadata }))
      if (plan !== undefined) await run(changeOrgPlan({ org_id: orgId, plan, now, metadata }))
      process.stdout.write(`${JSON.stringify({ org_id: orgId, ...(summaries !== undefined ? { summaries } : {}), ...(plan !== undefined ? { plan } : {}) })}\n`)
    } else if (args[0] === 'key' && args[1] === 'grant') {
      const orgId = flag(args, 'org')
      const keyId = flag(args, 'key')
      const scopes = flag(args, 'scopes')
      if (!orgId || !keyId || !scopes) throw new Error('--org, --key and --scopes are required')
      const granted = await run(grantApiKeyScopes({ org_id: orgId, key_id: keyId, scopes: scopes.split(',').map((s) => s.trim()), metadata }))
      const added = granted.events.flatMap((event) => event._tag === 'ApiKeyScopesGranted' ? event.scopes : [])
      process.stdout.write(`${JSON.stringify({ org_id: orgId, key_id: keyId, scopes_added: added })}\n`)
    } else if (args[0] === 'purge') {
      const asOf = flag(args, 'as-of')
      const now = asOf === undefined ? new Date() : new Date(asOf)
      if (Number.isNaN(now.getTime())) throw new Error('--as-of takes an ISO 8601 instant, e.g. 2030-01-01T00:00:00Z')
      const dryRun = args.includes('--dry-run')
      const counts = await run(purgeSweep(config, consoleLogger(config.logLevel), { now, dryRun }))
      process.stdout.write(`${JSON.stringify({ as_of: now.toISOString(), dry_run: dryRun, ...counts })}\n`)
    } else if (args[0] === 'replay') {
      const counts = await run(Effect.flatMap(ReadModels, replayProjections))
      process.stdout.write(`${JSON.stringify({ replayed: counts })}\n`)
    } else {
      process.stderr.write(`${usage}\n`)
      process.exitCode = 2
    }
  } catch (error) {
    const tagged = error as { _tag?: string; errors?: unknown }
    // Tagged domain errors (not found, conflicts) carry their facts in fields, not in a message.
    process.stderr.write(`error: ${tagged._tag === 'ValidationFailed' ? JSON.stringify(tagged.errors) : (error as Error).message || JSON.stringify(error)}\n`)
    process.exitCode = 1
  } finally {
    await runtime.dispose()
  }
}

await main(process.argv.slice(2))
