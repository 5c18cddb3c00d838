import { Effect } from 'effect'
import { ruleSummary } from '../../domain/detection/rule-summary.js'
import type { SummarizerService } from '../../ports/summarizer.js'

/** The built-in summarizer (the embedded default): made from the diff alone, no network. */
export const ruleSummarizer: SummarizerService = {
  kind: 'rules',
  summarize: (change) => Effect.succeed(ruleSummary(change.diff)),
}
