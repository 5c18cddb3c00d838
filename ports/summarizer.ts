import { Context, Data, type Effect } from 'effect'

export class SummaryUnavailable extends Data.TaggedError('SummaryUnavailable')<{ readonly reason: string }> {}

/** What a summarizer is told about a change: the diff lines the user sees (`-` removed, `+` added) and context. */
export interface ChangeToSummarize {
  readonly monitor_name: string
  readonly target_url: string
  readonly mode: string
  readonly diff: readonly string[]
  readonly change_ratio: number | null
}

/** Writes a short plain-language summary of a change. Best-effort: callers bound it with a deadline. */
export interface SummarizerService {
  /** Recorded with the summary (`rules`, `model`). */
  readonly kind: string
  readonly summarize: (change: ChangeToSummarize) => Effect.Effect<string, SummaryUnavailable>
}

export class Summarizer extends Context.Tag('Summarizer')<Summarizer, SummarizerService>() {}
