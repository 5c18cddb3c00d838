import { randomBytes, randomUUID } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import { Effect } from 'effect'
import { STREAMS } from '../domain/streams.js'
import { NotFound, StateConflict, Unauthenticated } from '../domain/errors.js'
import { orgDecider } from '../domain/org/decider.js'
import type { PlanName } from '../domain/plans.js'
import type { UserRole } from '../domain/user/roles.js'
import type { Credentials } from '../domain/user/credentials.js'
import { emailClaimDecider } from '../domain/user/email-claim.js'
import { personalOrgName } from '../domain/user/personal-org.js'
import { InvalidVerificationToken } from '../domain/user/errors.js'
import type { EmailClaimEvent, UserEvent } from '../domain/user/events.js'
import {
  emailHash, parseVerificationToken, verificationToken, verificationTokenHash,
} from '../domain/user/identity.js'
import { userDecider, type UserCommand } from '../domain/user/decider.js'
import { MailOutbox } from '../ports/mail.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { currentTime } from './clock.js'
import { handle, type CommandContext, foldHistory } from './handle.js'
import { createOrg } from './orgs.js'

/** `2` is Algorithm.Argon2id: the package declares it as a const enum, which isolatedModules cannot import. */
const ARGON2ID = 2
const hashPassword = (password: string) => Effect.promise(() => hash(password, { algorithm: ARGON2ID }))
const passwordMatches = (passwordHash: string, password: string) => Effect.promise(() => verify(passwordHash, password).catch(() => false))

/** Compared against when the e-mail is unknown, so an unknown address costs the same time as a wrong password. */
let decoyHash: Promise<string> | undefined
const decoy = () => (decoyHash ??= hash(randomBytes(16).toString('hex'), { algorithm: ARGON2ID }))

/** A claim whose user stream is still empty after this long belongs to a registration that died half-way. */
const ORPHANED_CLAIM_AFTER_MS = 60_000

export const loadUser = (userId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.user.stream(userId))
    return foldHistory(userDecider, history)
  })

const loadEmailClaim = (hashOfEmail: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.email.stream(hashOfEmail))
    return foldHistory(emailClaimDecider, history)
  })

const runUserCommand = (command: UserCommand, orgId: string, ctx: Omit<CommandContext, 'org_id'>) =>
  handle(userDecider, STREAMS.user.stream(command.user_id), command, { ...ctx, org_id: orgId })

/**
 * Claims the address for `userId` (append with expected revision `no_stream`: one winner among concurrent
 * registrations). Answers the user id that owns the address from now on: `userId`, or the id of an orphaned claim
 * (its registration died between the claim and the user's events) that this registration takes over.
 */
const claimEmail = (hashOfEmail: string, userId: string, metadata: EventMetadata) => Effect.flatMap(currentTime, (now) =>
  handle(emailClaimDecider, STREAMS.email.stream(hashOfEmail), { _tag: 'ClaimEmail', email_hash: hashOfEmail, user_id: userId, now: now.toISOString() },
    // The claim precedes the user's organization, so it belongs to none.
    { org_id: '', metadata }).pipe(
    Effect.as(userId),
    Effect.catchTag('StateConflict', (conflict) => Effect.gen(function* () {
      const claim = yield* loadEmailClaim(hashOfEmail)
      if (!claim.claimed) return yield* Effect.fail(conflict)
      const owner = yield* loadUser(claim.user_id)
      const orphaned = !owner.exists && now.getTime() - Date.parse(claim.claimed_at) > ORPHANED_CLAIM_AFTER_MS
      return orphaned ? claim.user_id : yield* Effect.fail(conflict)
    })),
  ))

/** Whether a user holds the address (a claim of a registration that died half-way does not count). */
export const emailRegistered = (email: string) =>
  Effect.gen(function* () {
    const claim = yield* loadEmailClaim(emailHash(email))
    return claim.claimed && (yield* loadUser(claim.user_id)).exists
  })

/** Gives the address back unless its user exists (then another registration that took over the same orphaned claim won). */
const releaseUnregisteredClaim = (hashOfEmail: string, userId: string, metadata: EventMetadata) =>
  Effect.gen(function* () {
    if ((yield* loadUser(userId)).exists) return
    const now = yield* currentTime
    yield* handle(emailClaimDecider, STREAMS.email.stream(hashOfEmail), { _tag: 'ReleaseEmailClaim', email_hash: hashOfEmail, user_id: userId, now: now.toISOString() },
      { org_id: '', metadata })
  })

export interface RegisterUser {
  readonly credentials: Credentials
  readonly verificationTtlSeconds: number
  readonly metadata: EventMetadata
}

/**
 * Runs `record` (which makes the user's stream) with the address claimed for a new user id. Whatever fails after the
 * claim releases it (and runs `undo`), so the address can be registered again at once. Should the release itself
 * fail, or the process die, the claim is orphaned and the next registration of the address takes it over after
 * ORPHANED_CLAIM_AFTER_MS.
 */
const withClaimedEmail = <A, E, R>(
  email: string, metadata: EventMetadata, record: (userId: string) => Effect.Effect<A, E, R>, undo: Effect.Effect<unknown, unknown, R> = Effect.void,
) => Effect.gen(function* () {
  const hashOfEmail = emailHash(email)
  const userId = yield* claimEmail(hashOfEmail, randomUUID(), metadata)
  return yield* record(userId).pipe(
    // Two registrations that took over the same orphaned claim: the user stream lets exactly one through.
    Effect.catchIf((error): error is E => error instanceof StateConflict, () => Effect.fail(new StateConflict({ code: 'email_already_used', message: 'this e-mail address is already registered' }))),
    Effect.onError(() => Effect.all([undo, releaseUnregisteredClaim(hashOfEmail, userId, metadata)], { mode: 'either' }).pipe(Effect.ignore)),
  )
})

export interface RegisterUser {
  readonly credentials: Credentials
  readonly verificationTtlSeconds: number
  /** The plan of the user's own organization (DEFAULT_PLAN); Free by default. */
  readonly plan?: PlanName
  readonly metadata: EventMetadata
}

/**
 * Registers a user with their own organization and issues a verification token. The password is hashed here
 * (argon2id), never in the decider; the clear token is staged in the mail outbox, and only its hash is recorded.
 * Whatever fails after the address was claimed (organization, outbox, user stream) releases the claim and the staged token.
 */
export const registerUser = (input: RegisterUser) =>
  Effect.gen(function* () {
    const { email, password } = input.credentials
    const passwordHash = yield* hashPassword(password)
    const outbox = yield* MailOutbox
    let tokenHash = ''
    return yield* withClaimedEmail(email, input.metadata, (userId) => Effect.gen(function* () {
      const token = verificationToken(userId, randomBytes(32).toString('base64url'))
      tokenHash = verificationTokenHash(token)
      const { org_id } = yield* createOrg({ name: personalOrgName(email), plan: input.plan ?? 'free', metadata: input.metadata })
      const now = yield* currentTime
      yield* outbox.stage(tokenHash, token)
      yield* runUserCommand({
        _tag: 'RegisterUser', user_id: userId, email, password_hash: passwordHash, org_id, token_hash: tokenHash,
        token_expires_at: new Date(now.getTime() + input.verificationTtlSeconds * 1000).toISOString(), now: now.toISOString(),
      }, org_id, { metadata: { ...input.metadata, actor: `user:${userId}` } })
      return { user_id: userId, org_id }
    }), Effect.suspend(() => (tokenHash ? outbox.remove(tokenHash) : Effect.void)))
  })

/**
 * An operator adds a verified user to an existing organization (`cli user create`, `cli org create --owner-email`):
 * they can sign in at once, and the dashboard shows them that organization.
 */
export const addUser = (input: { readonly credentials: Credentials; readonly org_id: string; readonly role: UserRole; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const org = foldHistory(orgDecider, yield* (yield* EventStore).readStream(STREAMS.org.stream(input.org_id)))
    if (!org.exists) return yield* Effect.fail(new NotFound({ resource: 'org', id: input.org_id }))
    const passwordHash = yield* hashPassword(input.credentials.password)
    return yield* withClaimedEmail(input.credentials.email, input.metadata, (userId) => Effect.gen(function* () {
      const handled = yield* runUserCommand({
        _tag: 'AddUser', user_id: userId, email: input.credentials.email, password_hash: passwordHash, org_id: input.org_id, role: input.role,
        now: (yield* currentTime).toISOString(),
      }, input.org_id, { metadata: input.metadata })
      return { user_id: userId, org_id: input.org_id, email: input.credentials.email, role: input.role, position: handled.position }
    }))
  })

/** Marks the address verified when the token is the user's pending one and has not expired; a token works once. */
export const verifyEmail = (token: string, metadata: EventMetadata) =>
  Effect.gen(function* () {
    const parsed = parseVerificationToken(token)
    if (!parsed) return yield* Effect.fail(new InvalidVerificationToken({ reason: 'unknown' }))
    const user = yield* loadUser(parsed.user_id)
    const command: UserCommand = { _tag: 'VerifyEmail', user_id: parsed.user_id, token_hash: verificationTokenHash(token), now: (yield* currentTime).toISOString() }
    const handled = yield* runUserCommand(command, user.exists ? user.org_id : '', { metadata: { ...metadata, actor: `user:${parsed.user_id}` } })
    return { user_id: parsed.user_id, position: handled.position }
  })

export interface AuthenticatedUser {
  readonly user_id: string
  readonly email: string
  readonly org_id: string
  readonly is_verified: boolean
}

const invalidCredentials = () => new Unauthenticated({ code: 'invalid_credentials', message: 'the e-mail or password is wrong' })

/**
 * Checks an e-mail and password against the user's own stream (not a read model, so a login right after
 * registration works). Unknown e-mail and wrong password answer the same error after the same work.
 */
export const authenticateUser = (credentials: Credentials) =>
  Effect.gen(function* () {
    const claim = yield* loadEmailClaim(emailHash(credentials.email))
    const user = claim.claimed ? yield* loadUser(claim.user_id) : null
    if (!user?.exists) {
      yield* Effect.promise(async () => verify(await decoy(), credentials.password).catch(() => false))
      return yield* Effect.fail(invalidCredentials())
    }
    if (!(yield* passwordMatches(user.password_hash, credentials.password))) return yield* Effect.fail(invalidCredentials())
    const authenticated: AuthenticatedUser = { user_id: user.user_id, email: user.email, org_id: user.org_id, is_verified: user.verified }
    return authenticated
  })

/** The mailer's record that a token's e-mail went out; idempotent per token. */
export const recordVerificationEmailSent = (
  input: { readonly user_id: string; readonly org_id: string; readonly token_hash: string; readonly message_id: string },
  ctx: Omit<CommandContext, 'org_id'>,
) => Effect.flatMap(currentTime, (now) =>
  runUserCommand({ _tag: 'RecordVerificationEmailSent', user_id: input.user_id, token_hash: input.token_hash, message_id: input.message_id, now: now.toISOString() }, input.org_id, ctx))
