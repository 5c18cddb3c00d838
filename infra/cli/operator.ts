import { Effect } from 'effect'
import { currentTime } from '../../commands/clock.js'
import { changeOrgPlan, setOrgIpAllowlist, setOrgSummaries } from '../../commands/org-settings.js'
import { createApiKey, createOrg, DEFAULT_KEY_LIMITS, grantApiKeyScopes, revokeApiKey } from '../../commands/orgs.js'
import { addUser, emailRegistered } from '../../commands/users.js'
import { StateConflict } from '../../domain/errors.js'
import { PLAN_NAMES, type PlanName } from '../../domain/plans.js'
import { isScope, SCOPES } from '../../domain/scopes.js'
import { checkCredentials, type Credentials } from '../../domain/user/credentials.js'
import { USER_ROLES, type UserRole } from '../../domain/user/roles.js'
import type { EventMetadata } from '../../ports/event-store.js'
import { getOrg, listKeys } from '../../projections/org-queries.js'
import { ORGS } from '../../projections/orgs.js'
import { findDocs } from '../../projections/projection.js'
import { USERS } from '../../projections/users.js'
import type { Run } from '../runtime.js'
import { oneOf, positiveInteger, required, UsageError, type Args } from './args.js'
import { list, record, type CliResult } from './output.js'

/** What a command runs with once its input is checked: the process's services, the metadata of its events, the settings. */
export interface CliContext {
  readonly run: Run
  readonly metadata: EventMetadata
  /** DEFAULT_PLAN: an organization made without --plan gets the plan a sign-up would, as the service is configured. */
  readonly defaultPlan: PlanName
}

export interface CliCommand {
  readonly words: readonly string[]
  readonly usage: string
  readonly flags: readonly string[]
  /** Checks the input (UsageError before anything is opened) and answers what to run. */
  readonly prepare: (args: Args) => (ctx: CliContext) => Promise<CliResult>
}

const KEY_COLUMNS = ['key_id', 'name', 'key_prefix', 'scopes', 'created_at', 'revoked_at']
const USER_COLUMNS = ['user_id', 'email', 'org_id', 'role', 'is_verified', 'created_at']

const credentials = (email: string, password: string): Credentials => {
  const checked = checkCredentials({ email, password }, 'register')
  if (!checked.ok) throw new UsageError(checked.errors.map((e) => `${e.field === 'email' ? 'e-mail' : 'password'}: ${e.message}`).join('; '))
  return checked.value
}

const scopesOf = (raw: string | undefined) => {
  if (raw === undefined) return [...SCOPES]
  const scopes = raw.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = scopes.filter((s) => !isScope(s))
  if (scopes.length === 0 || unknown.length > 0) throw new UsageError(`--scopes takes a comma-separated list of ${SCOPES.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`)
  return scopes
}

const limitsOf = (args: Args) => {
  const rpm = positiveInteger(args, 'rate-limit-rpm')
  const daily = positiveInteger(args, 'daily-quota')
  return { ...DEFAULT_KEY_LIMITS, ...(rpm !== undefined ? { rate_limit_rpm: rpm } : {}), ...(daily !== undefined ? { daily_quota: daily } : {}) }
}

/** The address must be free before anything is recorded, so a taken one leaves no organization behind. */
const addressFree = (email: string) => Effect.flatMap(emailRegistered(email), (taken) =>
  taken ? Effect.fail(new StateConflict({ code: 'email_already_used', message: `${email} is registered already` })) : Effect.void)

const plainUser = (user: { user_id: string; email: string; org_id: string; role: UserRole }) => ({ user_id: user.user_id, email: user.email, org_id: user.org_id, role: user.role })

export const OPERATOR_COMMANDS: readonly CliCommand[] = [
  {
    words: ['org', 'create'],
    usage: 'org create --name NAME [--plan PLAN] [--owner-email E --owner-password PW] [--rate-limit-rpm N] [--daily-quota N]',
    flags: ['name', 'plan', 'owner-email', 'owner-password', 'rate-limit-rpm', 'daily-quota'],
    prepare: (args) => {
      const name = required(args, 'name')
      const plan = args.flags.has('plan') ? oneOf(args.flags.get('plan')!, PLAN_NAMES, 'plan') : undefined
      const email = args.flags.get('owner-email')
      const password = args.flags.get('owner-password')
      if ((email === undefined) !== (password === undefined)) throw new UsageError('--owner-email and --owner-password go together')
      const owner = email !== undefined && password !== undefined ? credentials(email, password) : null
      // The first key bounds every key made from it (a key never creates a wider one), so the operator sets its limits here.
      const limits = limitsOf(args)
      return async ({ run, metadata, defaultPlan }) => run(Effect.gen(function* () {
        if (owner) yield* addressFree(owner.email)
        const chosen = plan ?? defaultPlan
        const { org_id } = yield* createOrg({ name, plan: chosen, metadata })
        const key = yield* createApiKey({ org_id, name: 'default', scopes: SCOPES, limits, expires_at: null, metadata })
        const user = owner ? yield* addUser({ credentials: owner, org_id, role: 'owner', metadata }) : null
        return record({ org_id, name, plan: chosen, key_id: key.key_id, api_key: key.secret, ...(user ? { owner_user_id: user.user_id, owner_email: user.email } : {}) })
      }))
    },
  },
  {
    words: ['org', 'list'],
    usage: 'org list',
    flags: [],
    prepare: () => async ({ run }) => {
      const orgs = await run(findDocs(ORGS, {}, { sort: [['created_at', 'asc'], ['org_id', 'asc']] }))
      return list(orgs.map((o) => ({ org_id: o.org_id, name: o.name, plan: o.plan, created_at: o.created_at })), ['org_id', 'name', 'plan', 'created_at'])
    },
  },
  {
    words: ['org', 'show'],
    usage: 'org show --org ORG_ID',
    flags: ['org'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      return async ({ run }) => run(Effect.gen(function* () {
        const org = yield* getOrg(orgId)
        const keys = yield* listKeys(orgId)
        const users = yield* findDocs(USERS, { org_id: orgId })
        return record({
          org_id: org.org_id, name: org.name, plan: org.plan, created_at: org.created_at, ip_allowlist: org.ip_allowlist,
          active_keys: keys.filter((k) => k.revoked_at === null).length, users: users.length,
        })
      }))
    },
  },
  {
    words: ['org', 'set'],
    usage: 'org set --org ORG_ID [--plan PLAN] [--summaries on|off]',
    flags: ['org', 'plan', 'summaries'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      const plan = args.flags.has('plan') ? oneOf(args.flags.get('plan')!, PLAN_NAMES, 'plan') : undefined
      const summaries = args.flags.has('summaries') ? oneOf(args.flags.get('summaries')!, ['on', 'off'] as const, 'summaries') : undefined
      if (plan === undefined && summaries === undefined) throw new UsageError('org set takes --plan and/or --summaries')
      return async ({ run, metadata }) => run(Effect.gen(function* () {
        const now = (yield* currentTime).toISOString()
        if (summaries !== undefined) yield* setOrgSummaries({ org_id: orgId, enabled: summaries === 'on', now, metadata })
        if (plan !== undefined) yield* changeOrgPlan({ org_id: orgId, plan, now, metadata })
        return record({ org_id: orgId, ...(summaries !== undefined ? { summaries } : {}), ...(plan !== undefined ? { plan } : {}) })
      }))
    },
  },
  {
    words: ['org', 'ip-allowlist', 'clear'],
    usage: 'org ip-allowlist clear --org ORG_ID',
    flags: ['org'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      return async ({ run, metadata }) => {
        await run(setOrgIpAllowlist({ org_id: orgId, ip_allowlist: [], metadata }))
        return record({ org_id: orgId, ip_allowlist: [] })
      }
    },
  },
  {
    words: ['key', 'create'],
    usage: `key create --org ORG_ID [--name NAME] [--scopes SCOPE,...] [--rate-limit-rpm N] [--daily-quota N]`,
    flags: ['org', 'name', 'scopes', 'rate-limit-rpm', 'daily-quota'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      const name = args.flags.get('name') ?? 'cli'
      const scopes = scopesOf(args.flags.get('scopes'))
      const limits = limitsOf(args)
      return async ({ run, metadata }) => {
        const key = await run(createApiKey({ org_id: orgId, name, scopes, limits, expires_at: null, metadata }))
        return record({ org_id: orgId, key_id: key.key_id, name, scopes, api_key: key.secret })
      }
    },
  },
  {
    words: ['key', 'list'],
    usage: 'key list --org ORG_ID',
    flags: ['org'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      return async ({ run }) => run(Effect.gen(function* () {
        yield* getOrg(orgId)
        const keys = yield* listKeys(orgId)
        return list(keys.map((k) => Object.fromEntries(KEY_COLUMNS.map((c) => [c, k[c as keyof typeof k]]))), KEY_COLUMNS)
      }))
    },
  },
  {
    words: ['key', 'revoke'],
    usage: 'key revoke --org ORG_ID --key KEY_ID',
    flags: ['org', 'key'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      const keyId = required(args, 'key')
      return async ({ run, metadata }) => {
        await run(revokeApiKey({ org_id: orgId, key_id: keyId, metadata }))
        return record({ org_id: orgId, key_id: keyId, revoked: true })
      }
    },
  },
  {
    words: ['key', 'grant'],
    usage: 'key grant --org ORG_ID --key KEY_ID --scopes SCOPE,...',
    flags: ['org', 'key', 'scopes'],
    prepare: (args) => {
      const orgId = required(args, 'org')
      const keyId = required(args, 'key')
      const scopes = scopesOf(required(args, 'scopes'))
      return async ({ run, metadata }) => {
        const granted = await run(grantApiKeyScopes({ org_id: orgId, key_id: keyId, scopes, metadata }))
        const added = granted.events.flatMap((event) => event._tag === 'ApiKeyScopesGranted' ? event.scopes : [])
        return record({ org_id: orgId, key_id: keyId, scopes_added: added })
      }
    },
  },
  {
    words: ['user', 'create'],
    usage: `user create --email E --password PW --org ORG_ID [--role ${USER_ROLES.join('|')}]`,
    flags: ['email', 'password', 'org', 'role'],
    prepare: (args) => {
      const user = credentials(required(args, 'email'), required(args, 'password'))
      const orgId = required(args, 'org')
      const role = oneOf(args.flags.get('role') ?? 'member', USER_ROLES, 'role')
      return async ({ run, metadata }) => run(Effect.gen(function* () {
        yield* addressFree(user.email)
        return record(plainUser(yield* addUser({ credentials: user, org_id: orgId, role, metadata })))
      }))
    },
  },
  {
    words: ['user', 'list'],
    usage: 'user list [--org ORG_ID]',
    flags: ['org'],
    prepare: (args) => {
      const orgId = args.flags.get('org')
      return async ({ run }) => {
        const users = await run(findDocs(USERS, orgId === undefined ? {} : { org_id: orgId }, { sort: [['created_at', 'asc'], ['user_id', 'asc']] }))
        return list(users.map((u) => Object.fromEntries(USER_COLUMNS.map((c) => [c, c === 'role' ? u.role ?? 'owner' : u[c as keyof typeof u]]))), USER_COLUMNS)
      }
    },
  },
]
