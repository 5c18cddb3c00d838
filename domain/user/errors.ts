import { Data } from 'effect'

/**
 * A verification token that is unknown, expired or already used. The three look alike on purpose (answered 422
 * `invalid_or_expired_token`): the answer must not tell a guesser which tokens once existed.
 */
export class InvalidVerificationToken extends Data.TaggedError('InvalidVerificationToken')<{ readonly reason: 'unknown' | 'expired' | 'used' }> {}
