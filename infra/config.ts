import { hkdfSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseAllowlist, type Allowlist } from '../domain/address-policy.js'

export const ROLES = ['api', 'relay', 'fetcher', 'projector', 'mailer'] as const
export type Role = (typeof ROLES)[number]

export interface Config {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  readonly publicBaseUrl: string
  readonly ssrfAllowlist: Allowlist
  readonly ssrfAllowlistRaw: string
  readonly signingSecret: string
  readonly artifactUrlTtlSeconds: number
  readonly fetcherConcurrency: number
  readonly roles: readonly Role[]
  readonly logLevel: string
  readonly workerId: string
  /** Account API: HS256 key of access tokens and session cookies. */
  readonly jwtSecret: string
  readonly accessTokenTtlSeconds: number
  readonly sessionTtlSeconds: number
  readonly verificationTokenTtlSeconds: number
  readonly loginAttemptsPerMinute: number
  /** Mail: every message is also written to DATA_DIR/outbox/; SMTP only when set. */
  readonly smtpUrl: string | null
  readonly mailFrom: string
}

const int = (raw: string | undefined, fallback: number, name: string): number => {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return n
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

export const parseRoles = (raw: string | undefined): readonly Role[] => {
  if (!raw) return ROLES
  const roles = raw.split(',').map((r) => r.trim()).filter(Boolean)
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r))
  if (unknown.length > 0) throw new Error(`unknown roles: ${unknown.join(', ')} (known: ${ROLES.join(', ')})`)
  return roles as Role[]
}

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const port = int(env.PORT, 8080, 'PORT')
  const dataDir = resolve(env.DATA_DIR ?? './data')
  const signing = signingSecret(dataDir, env)
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '')
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    publicBaseUrl,
    ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
    ssrfAllowlistRaw: env.SSRF_ALLOWLIST ?? '',
    signingSecret: signing,
    artifactUrlTtlSeconds: int(env.ARTIFACT_URL_TTL_SECONDS, 300, 'ARTIFACT_URL_TTL_SECONDS'),
    fetcherConcurrency: Math.max(1, int(env.FETCHER_CONCURRENCY, 16, 'FETCHER_CONCURRENCY')),
    roles: parseRoles(env.ROLES),
    logLevel: env.LOG_LEVEL ?? 'info',
    workerId: env.WORKER_ID ?? `${process.pid}`,
    jwtSecret: jwtSecret(env, signing),
    accessTokenTtlSeconds: Math.max(1, int(env.ACCESS_TOKEN_TTL_SECONDS, 3600, 'ACCESS_TOKEN_TTL_SECONDS')),
    sessionTtlSeconds: Math.max(1, int(env.SESSION_TTL_SECONDS, 7 * 86_400, 'SESSION_TTL_SECONDS')),
    verificationTokenTtlSeconds: Math.max(1, int(env.VERIFICATION_TOKEN_TTL_SECONDS, 86_400, 'VERIFICATION_TOKEN_TTL_SECONDS')),
    loginAttemptsPerMinute: Math.max(1, int(env.LOGIN_ATTEMPTS_PER_MINUTE, 5, 'LOGIN_ATTEMPTS_PER_MINUTE')),
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || `Scrapeworks <no-reply@${new URL(publicBaseUrl).hostname}>`,
  }
}
