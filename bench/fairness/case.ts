/**
 * A hostile case of `npm run bench:fairness`: a module in `bench/fairness/` (loaded by directory listing) exporting
 * `export const fairnessCase: FairnessCase`. For each case the bench runs its `setup` (local servers the case needs),
 * starts a fresh service (embedded profile, its own process) whose `SSRF_ALLOWLIST` holds the setup's entries, creates
 * a hostile and a victim organization, measures the victim's jobs alone, then again while `hostile` runs, and finally
 * aborts `signal`, awaits `hostile` and calls `close`.
 */
export interface FairnessSetup {
  /** `host:port` entries the service may reach (joined to the bench's own in `SSRF_ALLOWLIST`). */
  readonly allowlist: readonly string[]
  /** Extra environment for the service process of this case (e.g. a concurrency setting); optional. */
  readonly env?: Readonly<Record<string, string>>
  /** Stops what `setup` started; called after the service has stopped. */
  close(): Promise<void>
}

export interface FairnessContext<S extends FairnessSetup = FairnessSetup> {
  /** The service's base URL, e.g. `http://127.0.0.1:PORT`. */
  readonly base: string
  /** API key (header `x-api-key`) of the hostile organization: every scope, a self-registered-size plan's limits lifted. */
  readonly hostileKey: string
  /** API key of the victim organization (the case should not need it; given for cases that compare). */
  readonly victimKey: string
  /** Aborted when the victim's measurement beside the hostile load is over: stop submitting and resolve. */
  readonly signal: AbortSignal
  /** What `setup` answered (undefined for a case without `setup`). */
  readonly setup: S | undefined
}

export interface FairnessCase<S extends FairnessSetup = FairnessSetup> {
  /** Short name printed with the case's figures, e.g. `css-has-nested-divs`. */
  readonly name: string
  readonly setup?: () => Promise<S>
  /**
   * Starts the hostile tenant's load and keeps it up until `ctx.signal` aborts (or returns earlier once everything it
   * means to submit is submitted; the bench keeps measuring the victim either way). It must not throw on an abort.
   */
  readonly hostile: (ctx: FairnessContext<S>) => Promise<void>
}
