import t from 'tap'
import { scenario as scenarioOf } from '../helpers/given-when-then.js'
import { fold } from '../../domain/decider.js'
import { decodeEvent, encodeEvent, isKnownEventType } from '../../domain/events.js'
import { checkCredentials } from '../../domain/user/credentials.js'
import { personalOrgName } from '../../domain/user/personal-org.js'
import { ORG_NAME_MAX_LENGTH } from '../../domain/org/decider.js'
import { userDecider, type UserCommand } from '../../domain/user/decider.js'
import { emailClaimDecider, type EmailClaimCommand } from '../../domain/user/email-claim.js'
import { EmailClaimed, EmailClaimReleased, UserRegistered, UserVerified, VerificationEmailSent, VerificationTokenIssued } from '../../domain/user/events.js'
import { emailHash, parseVerificationToken } from '../../domain/user/identity.js'


const NOW = '2024-05-01T12:00:00.000Z'
const BEFORE_EXPIRY = '2024-05-02T11:59:59.999Z'
const EXPIRY = '2024-05-02T12:00:00.000Z'
const given = scenarioOf(t, userDecider)

const register: UserCommand = {
  _tag: 'RegisterUser', user_id: 'u1', email: 'ada@example.com', password_hash: '$argon2id$v=19$m=19456,t=2,p=1$salt$hash', org_id: 'o1',
  token_hash: 'h1', token_expires_at: EXPIRY, now: NOW,
}
const verifyWith = (token_hash: string, now = BEFORE_EXPIRY): UserCommand => ({ _tag: 'VerifyEmail', user_id: 'u1', token_hash, now })
const recordSent = (token_hash: string): UserCommand => ({ _tag: 'RecordVerificationEmailSent', user_id: 'u1', token_hash, message_id: '<m1@x>', now: NOW })

const registered = new UserRegistered({ user_id: 'u1', email: 'ada@example.com', password_hash: register.password_hash, org_id: 'o1', registered_at: NOW })
const issued = new VerificationTokenIssued({ user_id: 'u1', token_hash: 'h1', expires_at: EXPIRY, issued_at: NOW })
const verified = new UserVerified({ user_id: 'u1', verified_at: BEFORE_EXPIRY })
const sent = new VerificationEmailSent({ user_id: 'u1', token_hash: 'h1', message_id: '<m1@x>', sent_at: NOW })

// ---- registration ----
given([]).when(register).then([registered, issued], 'RegisterUser records the user and a verification token (hashes only)')
given([registered, issued]).when(register).then({ _tag: 'StateConflict', code: 'user_exists' }, 'RegisterUser twice conflicts')
given([]).when({ ...register, email: 'Ada@Example.com' })
  .then({ _tag: 'ValidationFailed', errors: [{ field: 'email', code: 'invalid_email' }] }, 'the decider only records lower-cased addresses')
given([]).when({ ...register, email: 'not-an-address' }).then({ _tag: 'ValidationFailed' }, 'and only addresses')

// ---- users an operator adds (cli user create) ----
const add: UserCommand = { _tag: 'AddUser', user_id: 'u1', email: 'ada@example.com', password_hash: register.password_hash, org_id: 'o1', role: 'member', now: NOW }
const added = new UserRegistered({ user_id: 'u1', email: 'ada@example.com', password_hash: register.password_hash, org_id: 'o1', registered_at: NOW, role: 'member' })
given([]).when(add).then([added, new UserVerified({ user_id: 'u1', verified_at: NOW })], 'AddUser records the user with its role, verified at once (no token)')
given([registered, issued]).when(add).then({ _tag: 'StateConflict', code: 'user_exists' }, 'AddUser on an existing user conflicts')
given([]).when({ ...add, email: 'Ada@Example.com' }).then({ _tag: 'ValidationFailed', errors: [{ field: 'email', code: 'invalid_email' }] }, 'AddUser takes normalized addresses only')
given([added, new UserVerified({ user_id: 'u1', verified_at: NOW })]).when(verifyWith('h1')).then({ _tag: 'InvalidVerificationToken', reason: 'used' }, 'an added user has nothing left to verify')

// ---- verification ----
given([registered, issued]).when(verifyWith('h1')).then([verified], 'the pending token verifies before it expires')
given([registered, issued]).when(verifyWith('h1', EXPIRY)).then({ _tag: 'InvalidVerificationToken', reason: 'expired' }, 'at expires_at the token is expired')
given([registered, issued]).when(verifyWith('other')).then({ _tag: 'InvalidVerificationToken', reason: 'unknown' }, 'another token does not verify')
given([registered, issued, verified]).when(verifyWith('h1')).then({ _tag: 'InvalidVerificationToken', reason: 'used' }, 'a token works once')
given([]).when(verifyWith('h1')).then({ _tag: 'InvalidVerificationToken', reason: 'unknown' }, 'no user, no verification')

// ---- the mailer's record ----
given([registered, issued]).when(recordSent('h1')).then([sent], 'the sent e-mail is recorded')
given([registered, issued, sent]).when(recordSent('h1')).then([], 'recording it twice records nothing (idempotent mailer)')
given([]).when(recordSent('h1')).then([], 'nothing to record for a missing user')

t.match(fold(userDecider, [registered, issued, sent]), { exists: true, verified: false, pending: { token_hash: 'h1' }, org_id: 'o1' }, 'evolve tracks the pending token')
t.match(fold(userDecider, [registered, issued, verified]), { verified: true, pending: null }, 'verification clears the pending token')

// ---- the e-mail uniqueness guard ----
const givenClaim = scenarioOf(t, emailClaimDecider)
const claim: EmailClaimCommand = { _tag: 'ClaimEmail', email_hash: 'e1', user_id: 'u1', now: NOW }
const claimed = new EmailClaimed({ email_hash: 'e1', user_id: 'u1', claimed_at: NOW })
givenClaim([]).when(claim).then([claimed], 'a free address is claimed')
givenClaim([claimed]).when({ ...claim, user_id: 'u2' }).then({ _tag: 'StateConflict', code: 'email_already_used' }, 'a claimed address is email_already_used for another user')
givenClaim([claimed]).when(claim).then([], 'the owner claiming again records nothing')
const release: EmailClaimCommand = { _tag: 'ReleaseEmailClaim', email_hash: 'e1', user_id: 'u1', now: NOW }
const released = new EmailClaimReleased({ email_hash: 'e1', user_id: 'u1', released_at: NOW })
givenClaim([claimed]).when(release).then([released], "the claiming registration releases the address")
givenClaim([claimed]).when({ ...release, user_id: 'u2' }).then([], "another user's release records nothing")
givenClaim([claimed, released]).when(release).then([], 'a released address is not released twice')
givenClaim([claimed, released]).when({ ...claim, user_id: 'u2' }).then([new EmailClaimed({ email_hash: 'e1', user_id: 'u2', claimed_at: NOW })], 'a released address can be claimed again')

// ---- events round-trip through the stored form ----
for (const event of [registered, issued, sent, verified, claimed, released]) {
  const { type, data } = encodeEvent(event)
  t.ok(isKnownEventType(type), `${type} is a known event type`)
  t.same(decodeEvent(type, data), event, `${type} decodes to what was encoded`)
}

// ---- credentials and identity helpers ----
t.same(checkCredentials({ email: ' Ada@Example.COM ', password: 'eight888' }, 'register'), { ok: true, value: { email: 'ada@example.com', password: 'eight888' } }, 'addresses are trimmed and lower-cased')
t.match(checkCredentials({ email: 'ada@example.com', password: 'short' }, 'register'), { ok: false, errors: [{ code: 'password_too_short' }] })
t.match(checkCredentials({ email: 'ada@example.com', password: 'short' }, 'login'), { ok: true }, 'a login does not apply the password policy')
t.match(checkCredentials({ email: 42, password: ['x'] }, 'register'), { ok: false, errors: [{ code: 'invalid_email' }, { code: 'invalid_password' }] })
t.match(checkCredentials('nonsense', 'register'), { ok: false, errors: [{ code: 'missing_email' }, { code: 'missing_password' }] })
t.match(checkCredentials({ email: 'a@b.co', password: '𝔭𝔞𝔰𝔰' }, 'register'), { ok: false, errors: [{ code: 'password_too_short' }] }, 'the length counts characters, not UTF-16 units')
t.equal(emailHash('Ada@Example.com'), emailHash('ada@example.com'), 'the guard stream ignores case')
t.equal(personalOrgName('ada@example.com'), 'ada@example.com', "a user's organization is named after the address")
const longName = personalOrgName(`${'\u{1D4B6}'.repeat(120)}@example.com`)
t.ok(longName.length <= ORG_NAME_MAX_LENGTH && longName.endsWith('…') && !/\p{Cs}/u.test(longName), 'a long address is shortened between code points')
t.same(parseVerificationToken('00000000-0000-4000-8000-000000000000.abc'), { user_id: '00000000-0000-4000-8000-000000000000' })
t.equal(parseVerificationToken('../../etc.abc'), null, 'a token never names an arbitrary stream')
t.equal(parseVerificationToken('00000000-0000-4000-8000-000000000000.'), null)
