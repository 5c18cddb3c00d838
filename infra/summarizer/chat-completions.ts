import { Effect } from 'effect'
import { request, type Dispatcher } from 'undici'
import { SummaryUnavailable, type ChangeToSummarize, type SummarizerService } from '../../ports/summarizer.js'

export interface ChatCompletionsOptions {
  /** The provider's OpenAI-compatible base, e.g. `https://llm.example.eu/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string
  readonly model: string
  /** Sent as a bearer token; never logged and never part of an error. */
  readonly apiKey: string | null
  /** The egress gateway's dispatcher: the provider is reached under the same SSRF policy as every outbound call. */
  readonly dispatcher: Dispatcher
  readonly timeoutMs: number
}

/** Diff lines sent to the model: enough to summarize, bounded so a huge change costs a bounded request. */
const MAX_DIFF_LINES = 80
const MAX_LINE = 300
const MAX_SUMMARY = 500

const prompt = (change: ChangeToSummarize) => [
  `Page: ${change.target_url} (monitor "${change.monitor_name}", ${change.mode} mode).`,
  'Lines starting with - were removed, lines starting with + were added:',
  ...change.diff.slice(0, MAX_DIFF_LINES).map((line) => line.slice(0, MAX_LINE)),
  ...(change.diff.length > MAX_DIFF_LINES ? [`(${change.diff.length - MAX_DIFF_LINES} more lines)`] : []),
].join('\n')

const SYSTEM = 'You summarize changes to a watched web page for its owner. Answer with one or two short plain-language sentences, no preamble.'

/** The summary in an OpenAI-compatible chat-completions answer: `choices[0].message.content`. */
const contentOf = (body: unknown): string | undefined => {
  const choices = (body as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices
  const content = Array.isArray(choices) ? choices[0]?.message?.content : undefined
  return typeof content === 'string' && content.trim() !== '' ? content.trim().slice(0, MAX_SUMMARY) : undefined
}

/** A summarizer backed by any OpenAI-compatible chat-completions server (an EU-hosted provider, a self-hosted model). */
export const chatCompletionsSummarizer = (options: ChatCompletionsOptions): SummarizerService => ({
  kind: 'model',
  summarize: (change) => Effect.tryPromise({
    try: async (signal) => {
      const response = await request(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        dispatcher: options.dispatcher,
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
        headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: options.model,
          messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: prompt(change) }],
          max_tokens: 120,
          temperature: 0,
        }),
      })
      const body: unknown = await response.body.json().catch(() => undefined)
      if (response.statusCode !== 200) throw new Error(`the provider answered HTTP ${response.statusCode}`)
      const summary = contentOf(body)
      if (summary === undefined) throw new Error('the provider answered without a summary')
      return summary
    },
    // The reason names the failure, never the request (whose headers carry the key).
    catch: (error) => new SummaryUnavailable({ reason: error instanceof Error ? error.message : 'the provider could not be reached' }),
  }),
})
