import { Cause, Runtime } from 'effect'

/** A start-up failure the operator fixes by configuration: printed as its one-line message, without a stack. */
export class StartupError extends Error {}

/** The StartupError behind a failed start (the runtime wraps what a layer threw), or null for any other failure. */
export const startupErrorOf = (error: unknown): StartupError | null => {
  const cause = Runtime.isFiberFailure(error) ? Cause.squash(error[Runtime.FiberFailureCauseId]) : error
  return cause instanceof StartupError ? cause : null
}
