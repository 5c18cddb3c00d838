import { hkdfSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from '../api/server-limits.js'
import { PLAN_NAMES, type PlanName } from '../domain/plans.js'
import { parseAllowlist, type Allowlist } from '../domain/address-policy.js'
import { parseOriginOverrides, type OriginOverrides, type RecipeCatalogue } from '../domain/recipe/catalogue.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from './recipes.js'
import { DEFAULT_CIRCUIT_POLICY, type CircuitPolicy } from '../domain/webhook/circuit.js'
import { DEFAULT_RETRY_LADDER, parseRetryLadder } from '../domain/webhook/retry-ladder.js'

export const ROLES = ['api', 'relay', 'fetcher', 'projector', 'mailer', 'webhooks', 'detector', 'recipe-health', 'scheduler', 'purger'] as const
export type Role = (typeof ROLES)[number]

export interface AuditConfig {
  readonly keysFile: string
  readonly checkpointEvery: number
  readonly checkpointIntervalSeconds: number
}

export interface Config {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  readonly publicBaseUrl: string
  readonly ssrfAllowlist: Allowlist
  readonly ssrfAllowlistRaw: string
  /** SSL_CERT_FILE: a PEM file of CAs the light tier trusts beside Mozilla's roots (OpenSSL's variable, read by its BoringSSL). */
  readonly extraCaFile: string | null
  readonly signingSecret: string
  readonly artifactUrlTtlSeconds: number
  /** RESULT_WAIT_MAX_SECONDS: the longest `GET /v1/jobs/{id}/result?wait=` may hold a request (keep it under any proxy's idle timeout). */
  readonly resultWaitMaxSeconds: number
  /** FETCHER_CONCURRENCY: light jobs one fetcher process runs at once (its fetch slots). */
  readonly fetcherConcurrency: number
  /**
   * FETCHER_ORG_CONCURRENCY: slots of one tier (fetch slots, a browser tier's contexts) one organization holds at once;
   * unset, all of a pool of two and all but a quarter of a larger one (docs/fair-queueing.md).
   */
  readonly fetcherOrgConcurrency: number | null
  /** FETCHER_LOOKAHEAD: requested jobs a fetcher takes in at once and queues by organization (1024). */
  readonly fetcherLookahead: number
  readonly roles: readonly Role[]
  readonly logLevel: string
  readonly workerId: string
  /** REGISTRATION: `open` (anyone who reaches the service may sign up) or `closed` (only `cli user create` adds users). */
  readonly registration: 'open' | 'closed'
  /** DEFAULT_PLAN: the plan of the organization a sign-up gets (Free by default). */
  readonly defaultPlan: PlanName
  /** Account API: HS256 key of access tokens and session cookies. */
  readonly jwtSecret: string
  readonly accessTokenTtlSeconds: number
  readonly sessionTtlSeconds: number
  readonly verificationTokenTtlSeconds: number
  readonly loginAttemptsPerMinute: number
  readonly registrationsPerHour: number
  /** SCRAPES_PER_MINUTE: per-user request rate of the account API's /scrapes routes. */
  readonly scrapesPerMinute: number
  readonly loginFailuresBeforeBackoff: number
  /** Mail: every message is also written to DATA_DIR/outbox/; SMTP only when set. */
  readonly smtpUrl: string | null
  /** Change summaries from an OpenAI-compatible chat-completions provider; null: the built-in rule-based summaries. */
  readonly summarizer: { readonly baseUrl: string; readonly model: string; readonly apiKey: string | null } | null
  /** The hard deadline of one change summary. */
  readonly summaryDeadlineMs: number
  readonly mailFrom: string
  readonly adapters: AdapterSettings
  readonly browser: BrowserConfig
  /** TRUST_PROXY: `true`, or a comma-separated list of proxy addresses/CIDRs whose X-Forwarded-For is believed. */
  readonly trustProxy: boolean | string
  /** API_COMPILE_AHEAD (true): after start, compile the API's serializers and validators no request used yet, in idle turns. */
  readonly compileAhead: boolean
  /** CATCH_UP_POLL_MS: how often catch-up subscribers look for events appended by other processes. */
  readonly catchUpPollMs: number
  /** Real-time period of the scheduler's look at what is due besides its Clock wake-ups (SCHEDULER_POLL_MS). */
  readonly schedulerPollMs: number
  /** HTTP_*: timeouts for slow clients and the per-address connection cap of the API server. */
  readonly serverLimits: ServerLimits
  readonly recipes: RecipeSettings
  /** METRICS_PORT: `/metrics` on a listener of its own (any role); unset, it is served on the API port (api role only). */
  readonly metricsPort: number | null
  /** WEBHOOK_*: the webhooks role's retry ladder, answer deadline, parallel deliveries and look-again interval. */
  readonly webhooks: WebhookConfig
  /** AUDIT_*: the audit chain's keys file and how often its checkpoints are made (docs/audit.md). */
  readonly audit: AuditConfig
  /** PURGE_INTERVAL_SECONDS, PURGE_BATCH_SIZE: how often the purger sweeps, and how many jobs one sweep purges at most. */
  readonly purge: { readonly intervalSeconds: number; readonly batchSize: number }
}

export interface RecipeSettings {
  /** RECIPES_DIR: the folder of recipe documents (default: the recipes/ folder shipped with the service). */
  readonly catalogue: RecipeCatalogue
  /** RECIPE_ORIGIN_OVERRIDES: real origins served by local ones (testing and mirroring; the egress gateway still applies). */
  readonly overrides: OriginOverrides
  /** RECIPE_HEALTH_INTERVAL_MINUTES: how often the recipe-health role test-runs every recipe (default 15). */
  readonly healthIntervalMs: number
}

export interface WebhookConfig {
  /** WEBHOOK_RETRY_SCHEDULE (comma-separated seconds); the default ladder otherwise. */
  readonly retryLadder: readonly number[]
  /** WEBHOOK_TIMEOUT_MS (10000): a receiver answering later has failed the attempt. */
  readonly timeoutMs: number
  readonly concurrency: number
  /** WEBHOOK_ORG_CONCURRENCY (8): of those, deliveries of one organization at once, so its slow receivers leave slots for others. */
  readonly orgConcurrency: number
  /** WEBHOOK_ENDPOINT_CONCURRENCY (16): deliveries to one endpoint sent at once, so one slow receiver cannot take every slot. */
  readonly endpointConcurrency: number
  readonly pollMs: number
  /** WEBHOOK_CIRCUIT_THRESHOLD (5), WEBHOOK_CIRCUIT_COOLDOWN_MS (60000), WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS (3600000): the per-endpoint circuit breaker. */
  readonly circuit: CircuitPolicy
}

/** Browser tiers (standard, stealth): each engine has its own pool of browser processes. */
export interface BrowserConfig {
  /** CHROMIUM_PATH: the Chromium binary; jobs fail with browser_unavailable when it is missing. */
  readonly chromiumPath: string
  /** BROWSER_POOL_SIZE: jobs (browser contexts) one engine runs at once. */
  readonly poolSize: number
  /** BROWSER_PAGES_PER_PROCESS: a browser process is replaced after this many pages. */
  readonly pagesPerProcess: number
  /** BROWSER_MEMORY_GROWTH_MB: ... or once its process tree grew by this much since launch (0: off). */
  readonly memoryGrowthMb: number
  /** BROWSER_IDLE_MS: a browser process without jobs is closed after this long. */
  readonly idleMs: number
  /** STEALTH_CHALLENGE_WAIT_MS: how long a challenge page may take to clear itself before stealth_blocked. */
  readonly challengeWaitMs: number
}

/** Which adapter serves each port; the embedded profile is the default for all. */
export interface AdapterSettings {
  readonly eventStore: { readonly kind: 'sqlite' } | { readonly kind: 'eventstoredb'; readonly url: string } | { readonly kind: 'postgres'; readonly url: string }
  readonly documents: { readonly kind: 'sqlite' } | { readonly kind: 'mongodb'; readonly url: string; readonly database: string }
  readonly blobs: { readonly kind: 'local' } | { readonly kind: 'azure'; readonly connectionString: string; readonly container: string }
  readonly log: { readonly kind: 'catch-up' } | {
    readonly kind: 'kafka'; readonly brokers: readonly string[]; readonly topicPrefix: string; readonly groupPrefix: string
    readonly partitions: number; readonly sessionTimeoutMs: number
  }
}

const int = (raw: string | undefined, fallback: number, name: string): number => {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return n
}

const bool = (raw: string | undefined, fallback: boolean, name: string): boolean => {
  if (raw === undefined || raw === '') return fallback
  if (raw === 'true' || raw === 'false') return raw === 'true'
  throw new Error(`${name} must be true or false, got ${raw}`)
}

/**
 * The signing secret for artifact URLs: SIGNING_SECRET when set (required when several API processes share
 * one data set), otherwise generated once and kept in DATA_DIR so URLs survive restarts.
 */
const signingSecret = (dataDir: string, env: NodeJS.ProcessEnv): string => {
  if (env.SIGNING_SECRET) return env.SIGNING_SECRET
  const file = join(dataDir, 'signing-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' })
  return secret
}

/**
 * JWT_SECRET when set (at least 32 characters); otherwise derived from the signing secret (HKDF with its own
 * label), so tokens survive restarts and several API processes sharing SIGNING_SECRET accept each other's tokens.
 */
const jwtSecret = (env: NodeJS.ProcessEnv, signing: string): string => {
  if (env.JWT_SECRET) {
    if (env.JWT_SECRET.length < 32) throw new Error('JWT_SECRET must have at least 32 characters')
    return env.JWT_SECRET
  }
  return Buffer.from(hkdfSync('sha256', signing, 'scrapeworks', 'account-jwt', 32)).toString('base64url')
}

/** Roles started when ROLES is not set: all but recipe-health, whose test runs reach the real sites (opt in by naming it). */
export const DEFAULT_ROLES: readonly Role[] = ROLES.filter((role) => role !== 'recipe-health')

export const parseRoles = (raw: string | undefined): readonly Role[] => {
  if (!raw) return DEFAULT_ROLES
  const roles = raw.split(',').map((r) => r.trim()).filter(Boolean)
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r))
  if (unknown.length > 0) throw new Error(`unknown roles: ${unknown.join(', ')} (known: ${ROLES.join(', ')})`)
  return roles as Role[]
}

const oneOf = <T extends string>(raw: string | undefined, allowed: readonly T[], fallback: T, name: string): T => {
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got ${raw}`)
  return raw as T
}

/**
 * The environment the service and the CLI read: `.env` in the working directory (when present) under the process's
 * own variables, which win. Both read the same file with the same defaults, so they use the same data folder.
 */
export const environment = (env: NodeJS.ProcessEnv = process.env, dotEnvFile = resolve('.env')): NodeJS.ProcessEnv =>
  existsSync(dotEnvFile) ? { ...parseEnv(readFileSync(dotEnvFile, 'utf8')), ...env } : env

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const port = int(env.PORT, 8080, 'PORT')
  const dataDir = resolve(env.DATA_DIR ?? './data')
  const signing = signingSecret(dataDir, env)
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '')
  return {
    port,
    // Loopback unless told otherwise: a first start is not reachable (nor open to sign-ups) from the network.
    host: env.HOST || '127.0.0.1',
    dataDir,
    publicBaseUrl,
    ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
    ssrfAllowlistRaw: env.SSRF_ALLOWLIST ?? '',
    extraCaFile: env.SSL_CERT_FILE || null,
    signingSecret: signing,
    artifactUrlTtlSeconds: int(env.ARTIFACT_URL_TTL_SECONDS, 300, 'ARTIFACT_URL_TTL_SECONDS'),
    resultWaitMaxSeconds: Math.min(300, Math.max(1, int(env.RESULT_WAIT_MAX_SECONDS, 60, 'RESULT_WAIT_MAX_SECONDS'))),
    fetcherConcurrency: Math.max(1, int(env.FETCHER_CONCURRENCY, 16, 'FETCHER_CONCURRENCY')),
    fetcherOrgConcurrency: env.FETCHER_ORG_CONCURRENCY ? Math.max(1, int(env.FETCHER_ORG_CONCURRENCY, 1, 'FETCHER_ORG_CONCURRENCY')) : null,
    fetcherLookahead: Math.max(1, int(env.FETCHER_LOOKAHEAD, 1024, 'FETCHER_LOOKAHEAD')),
    roles: parseRoles(env.ROLES),
    logLevel: env.LOG_LEVEL ?? 'info',
    workerId: env.WORKER_ID ?? `${process.pid}`,
    adapters: loadAdapterSettings(env),
    trustProxy: env.TRUST_PROXY === 'true' ? true : env.TRUST_PROXY || false,
    compileAhead: bool(env.API_COMPILE_AHEAD, true, 'API_COMPILE_AHEAD'),
    catchUpPollMs: Math.max(5, int(env.CATCH_UP_POLL_MS, 50, 'CATCH_UP_POLL_MS')),
    schedulerPollMs: Math.max(5, int(env.SCHEDULER_POLL_MS, 250, 'SCHEDULER_POLL_MS')),
    serverLimits: loadServerLimits(env),
    metricsPort: env.METRICS_PORT ? int(env.METRICS_PORT, 0, 'METRICS_PORT') : null,
    recipes: { catalogue: loadRecipeCatalogue(env.RECIPES_DIR || DEFAULT_RECIPES_DIR), overrides: parseOriginOverrides(env.RECIPE_ORIGIN_OVERRIDES),
      healthIntervalMs: Math.max(1, int(env.RECIPE_HEALTH_INTERVAL_MINUTES, 15, 'RECIPE_HEALTH_INTERVAL_MINUTES')) * 60_000,
    },
    webhooks: {
      retryLadder: env.WEBHOOK_RETRY_SCHEDULE ? parseRetryLadder(env.WEBHOOK_RETRY_SCHEDULE) : DEFAULT_RETRY_LADDER,
      timeoutMs: Math.max(1, int(env.WEBHOOK_TIMEOUT_MS, 10_000, 'WEBHOOK_TIMEOUT_MS')),
      concurrency: Math.max(1, int(env.WEBHOOK_CONCURRENCY, 32, 'WEBHOOK_CONCURRENCY')),
      orgConcurrency: Math.max(1, int(env.WEBHOOK_ORG_CONCURRENCY, 8, 'WEBHOOK_ORG_CONCURRENCY')),
      endpointConcurrency: Math.max(1, int(env.WEBHOOK_ENDPOINT_CONCURRENCY, 16, 'WEBHOOK_ENDPOINT_CONCURRENCY')),
      pollMs: Math.max(10, int(env.WEBHOOK_POLL_MS, 500, 'WEBHOOK_POLL_MS')),
      circuit: {
        threshold: Math.max(1, int(env.WEBHOOK_CIRCUIT_THRESHOLD, DEFAULT_CIRCUIT_POLICY.threshold, 'WEBHOOK_CIRCUIT_THRESHOLD')),
        cooldownMs: Math.max(1, int(env.WEBHOOK_CIRCUIT_COOLDOWN_MS, DEFAULT_CIRCUIT_POLICY.cooldownMs, 'WEBHOOK_CIRCUIT_COOLDOWN_MS')),
        maxCooldownMs: Math.max(1, int(env.WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS, DEFAULT_CIRCUIT_POLICY.maxCooldownMs, 'WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS')),
      },
    },
    audit: {
      keysFile: resolve(env.AUDIT_KEYS_FILE || join(dataDir, 'audit-keys.json')),
      checkpointEvery: Math.max(1, int(env.AUDIT_CHECKPOINT_EVERY, 1000, 'AUDIT_CHECKPOINT_EVERY')),
      checkpointIntervalSeconds: Math.max(1, int(env.AUDIT_CHECKPOINT_INTERVAL_SECONDS, 3600, 'AUDIT_CHECKPOINT_INTERVAL_SECONDS')),
    },
    purge: {
      intervalSeconds: Math.max(1, int(env.PURGE_INTERVAL_SECONDS, 300, 'PURGE_INTERVAL_SECONDS')),
      batchSize: Math.max(1, int(env.PURGE_BATCH_SIZE, 1000, 'PURGE_BATCH_SIZE')),
    },
    browser: {
      chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
      poolSize: Math.max(1, int(env.BROWSER_POOL_SIZE, 2, 'BROWSER_POOL_SIZE')),
      pagesPerProcess: Math.max(1, int(env.BROWSER_PAGES_PER_PROCESS, 100, 'BROWSER_PAGES_PER_PROCESS')),
      memoryGrowthMb: int(env.BROWSER_MEMORY_GROWTH_MB, 768, 'BROWSER_MEMORY_GROWTH_MB'),
      idleMs: int(env.BROWSER_IDLE_MS, 120_000, 'BROWSER_IDLE_MS'),
      challengeWaitMs: int(env.STEALTH_CHALLENGE_WAIT_MS, 5_000, 'STEALTH_CHALLENGE_WAIT_MS'),
    },
    registration: oneOf(env.REGISTRATION, ['open', 'closed'] as const, 'open', 'REGISTRATION'),
    defaultPlan: oneOf(env.DEFAULT_PLAN, PLAN_NAMES, 'free', 'DEFAULT_PLAN'),
    jwtSecret: jwtSecret(env, signing),
    accessTokenTtlSeconds: Math.max(1, int(env.ACCESS_TOKEN_TTL_SECONDS, 3600, 'ACCESS_TOKEN_TTL_SECONDS')),
    sessionTtlSeconds: Math.max(1, int(env.SESSION_TTL_SECONDS, 7 * 86_400, 'SESSION_TTL_SECONDS')),
    verificationTokenTtlSeconds: Math.max(1, int(env.VERIFICATION_TOKEN_TTL_SECONDS, 86_400, 'VERIFICATION_TOKEN_TTL_SECONDS')),
    loginAttemptsPerMinute: Math.max(1, int(env.LOGIN_ATTEMPTS_PER_MINUTE, 5, 'LOGIN_ATTEMPTS_PER_MINUTE')),
    registrationsPerHour: Math.max(1, int(env.REGISTRATIONS_PER_HOUR, 10, 'REGISTRATIONS_PER_HOUR')),
    scrapesPerMinute: Math.max(1, int(env.SCRAPES_PER_MINUTE, 60, 'SCRAPES_PER_MINUTE')),
    loginFailuresBeforeBackoff: Math.max(1, int(env.LOGIN_FAILURES_BEFORE_BACKOFF, 5, 'LOGIN_FAILURES_BEFORE_BACKOFF')),
    smtpUrl: env.SMTP_URL || null,
    summarizer: env.SUMMARIZER_URL
      ? { baseUrl: env.SUMMARIZER_URL, model: env.SUMMARIZER_MODEL || 'default', apiKey: env.SUMMARIZER_API_KEY || null }
      : null,
    summaryDeadlineMs: Math.max(100, int(env.SUMMARY_DEADLINE_MS, 10_000, 'SUMMARY_DEADLINE_MS')),
    mailFrom: env.MAIL_FROM || `Scrapeworks <no-reply@${new URL(publicBaseUrl).hostname}>`,
  }
}

const loadServerLimits = (env: NodeJS.ProcessEnv): ServerLimits => {
  const d = DEFAULT_SERVER_LIMITS
  const limits: ServerLimits = {
    headersTimeoutMs: Math.max(1, int(env.HTTP_HEADERS_TIMEOUT_MS, d.headersTimeoutMs, 'HTTP_HEADERS_TIMEOUT_MS')),
    requestTimeoutMs: Math.max(1, int(env.HTTP_REQUEST_TIMEOUT_MS, d.requestTimeoutMs, 'HTTP_REQUEST_TIMEOUT_MS')),
    idleTimeoutMs: Math.max(1, int(env.HTTP_IDLE_TIMEOUT_MS, d.idleTimeoutMs, 'HTTP_IDLE_TIMEOUT_MS')),
    keepAliveTimeoutMs: Math.max(1, int(env.HTTP_KEEP_ALIVE_TIMEOUT_MS, d.keepAliveTimeoutMs, 'HTTP_KEEP_ALIVE_TIMEOUT_MS')),
    maxConnectionsPerAddress: int(env.HTTP_MAX_CONNECTIONS_PER_ADDRESS, d.maxConnectionsPerAddress, 'HTTP_MAX_CONNECTIONS_PER_ADDRESS'),
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new Error('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS')
  return limits
}

const required = (env: NodeJS.ProcessEnv, name: string, why: string): string => {
  const value = env[name]
  if (!value) throw new Error(`${name} is required ${why}`)
  return value
}

/** PROFILE=scale-out switches every port to its distributed adapter; each port can also be chosen on its own. */
export const loadAdapterSettings = (env: NodeJS.ProcessEnv): AdapterSettings => {
  if (env.PROFILE && !['embedded', 'scale-out'].includes(env.PROFILE)) throw new Error(`PROFILE must be embedded or scale-out, got ${env.PROFILE}`)
  const scaleOut = env.PROFILE === 'scale-out'
  const pick = (name: string, distributed: string) => env[name] ?? (scaleOut ? distributed : undefined)
  const eventStore = pick('EVENT_STORE', env.EVENTSTORE_URL ? 'eventstoredb' : 'sqlite') ?? 'sqlite'
  const documents = pick('READ_MODEL_STORE', 'mongodb') ?? 'sqlite'
  const blobs = pick('BLOB_STORE', 'azure') ?? 'local'
  const log = pick('EVENT_LOG', 'kafka') ?? 'catch-up'
  const check = (name: string, value: string, allowed: string[]) => {
    if (!allowed.includes(value)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got ${value}`)
  }
  check('EVENT_STORE', eventStore, ['sqlite', 'eventstoredb', 'postgres'])
  check('READ_MODEL_STORE', documents, ['sqlite', 'mongodb'])
  check('BLOB_STORE', blobs, ['local', 'azure'])
  check('EVENT_LOG', log, ['catch-up', 'kafka'])
  return {
    eventStore: eventStore === 'eventstoredb' ? { kind: 'eventstoredb', url: required(env, 'EVENTSTORE_URL', 'for EVENT_STORE=eventstoredb') }
      : eventStore === 'postgres' ? { kind: 'postgres', url: required(env, 'DATABASE_URL', 'for EVENT_STORE=postgres') }
      : { kind: 'sqlite' },
    documents: documents === 'mongodb'
      ? { kind: 'mongodb', url: required(env, 'MONGO_URL', 'for READ_MODEL_STORE=mongodb'), database: env.MONGO_DB ?? 'scrapeworks' }
      : { kind: 'sqlite' },
    blobs: blobs === 'azure'
      ? { kind: 'azure', connectionString: required(env, 'AZURE_BLOB_CONNECTION_STRING', 'for BLOB_STORE=azure'), container: env.AZURE_BLOB_CONTAINER ?? 'artifacts' }
      : { kind: 'local' },
    log: log === 'kafka'
      ? {
        kind: 'kafka', brokers: required(env, 'KAFKA_BROKERS', 'for EVENT_LOG=kafka').split(',').map((b) => b.trim()),
        topicPrefix: env.KAFKA_TOPIC_PREFIX ?? 'scrapeworks', groupPrefix: env.KAFKA_GROUP_PREFIX ?? 'scrapeworks',
        partitions: int(env.KAFKA_PARTITIONS, 8, 'KAFKA_PARTITIONS'), sessionTimeoutMs: int(env.KAFKA_SESSION_TIMEOUT_MS, 10_000, 'KAFKA_SESSION_TIMEOUT_MS'),
      }
      : { kind: 'catch-up' },
  }
}
