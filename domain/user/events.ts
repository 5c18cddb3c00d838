import { Schema } from 'effect'
import { USER_ROLES } from './roles.js'

/**
 * Events of the `user-<id>` stream. Secrets never enter them in clear: the password only as its argon2id hash,
 * the verification token only as its SHA-256 (the token itself reaches the user by e-mail alone).
 */
export class UserRegistered extends Schema.TaggedClass<UserRegistered>()('UserRegistered', {
  user_id: Schema.String,
  /** Normalized (trimmed, lower-cased, NFC): see domain/user/email-address.ts. */
  email: Schema.String,
  /** argon2id PHC string, computed by the command handler. */
  password_hash: Schema.String,
  /** The user's own organization (Free plan), created at registration. */
  org_id: Schema.String,
  registered_at: Schema.String,
  /** Absent on registrations (the user owns their own organization); set when an operator adds the user (`cli user create`). */
  role: Schema.optional(Schema.Literal(...USER_ROLES)),
}) {}

export class VerificationTokenIssued extends Schema.TaggedClass<VerificationTokenIssued>()('VerificationTokenIssued', {
  user_id: Schema.String,
  token_hash: Schema.String,
  expires_at: Schema.String,
  issued_at: Schema.String,
}) {}

/** The mailer's outcome: the verification message of one token was handed to the outbox (and SMTP when configured). */
export class VerificationEmailSent extends Schema.TaggedClass<VerificationEmailSent>()('VerificationEmailSent', {
  user_id: Schema.String,
  token_hash: Schema.String,
  message_id: Schema.String,
  sent_at: Schema.String,
}) {}

export class UserVerified extends Schema.TaggedClass<UserVerified>()('UserVerified', {
  user_id: Schema.String,
  verified_at: Schema.String,
}) {}

export const UserEvent = Schema.Union(UserRegistered, VerificationTokenIssued, VerificationEmailSent, UserVerified)
export type UserEvent = typeof UserEvent.Type

/**
 * The `email-<sha256(normalized e-mail)>` stream, the uniqueness guard of addresses. The first claim is appended with
 * expected revision `no_stream`, later ones (after a release) with the stream's revision: of concurrent registrations
 * of one address exactly one claims it.
 */
export class EmailClaimed extends Schema.TaggedClass<EmailClaimed>()('EmailClaimed', {
  email_hash: Schema.String,
  user_id: Schema.String,
  claimed_at: Schema.String,
}) {}

/** A registration that failed after claiming gives the address back, so it can be registered again. */
export class EmailClaimReleased extends Schema.TaggedClass<EmailClaimReleased>()('EmailClaimReleased', {
  email_hash: Schema.String,
  user_id: Schema.String,
  released_at: Schema.String,
}) {}

export const EmailClaimEvent = Schema.Union(EmailClaimed, EmailClaimReleased)
export type EmailClaimEvent = typeof EmailClaimEvent.Type
