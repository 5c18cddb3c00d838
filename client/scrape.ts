import { flag, oneOf, onlyFlags, pairs, UsageError, type Args } from './args.js'
import type { Api } from './http.js'
import { ApiError, EXIT } from './http.js'
import { artifactBytes, awaitResult, requireSucceeded, type Progress } from './jobs.js'

export const TIERS = ['light', 'standard', 'stealth'] as const
/** The formats the command prints (the API has more: binary ones come as links, see docs/api-v1.md). */
export const PRINTABLE_FORMATS = ['markdown', 'html', 'text', 'json', 'links'] as const

/** What the command writes: text as it is, or a JSON value. */
export type Output = { readonly text: string } | { readonly bytes: Uint8Array } | { readonly json: unknown }

/**
 * `scrapeworks scrape URL`: submits a job asking for one format (markdown unless --format), or for extraction hooks
 * (--extract NAME=CSS, first match of each), waits for it and answers the format's content, all of it: content the
 * result cut at its inline cap is read from its artifact.
 */
export const scrape = async (api: Api, args: Args, progress: Progress): Promise<Output> => {
  onlyFlags(args, ['tier', 'format', 'extract', 'output'])
  const [url, ...extra] = args.words.slice(1)
  if (!url || extra.length > 0) throw new UsageError('scrape takes one URL')
  const tier = oneOf('tier', flag(args, 'tier'), TIERS, 'light')
  const extract = pairs(args, 'extract')
  if (extract.length > 0 && args.flags.has('format')) throw new UsageError('--extract prints the extracted values: it does not go with --format')
  const format = oneOf('format', flag(args, 'format'), PRINTABLE_FORMATS, 'markdown')
  const body = {
    job_type: tier, target_url: url,
    ...(extract.length > 0
      ? { extraction: { hooks: extract.map(([name, selector]) => ({ hook_id: name, type: 'css', selector })) } }
      : { formats: [format] }),
  }
  const submitted = await api.call('POST', '/v1/jobs', body)
  const jobId: string = submitted.body.job_id
  progress(`job ${jobId} submitted (${tier})`)
  const job = await awaitResult(api, jobId, progress)
  requireSucceeded(job)
  progress(`job ${jobId} succeeded`)
  if (extract.length > 0) {
    const artifact = job.artifacts.find((a: any) => a.artifact_type === 'json')
    const result = JSON.parse(new TextDecoder().decode(await artifactBytes(api, jobId, artifact.artifact_id))) as { hooks: { hook_id: string; result: unknown }[] }
    return { json: Object.fromEntries(result.hooks.map((h) => [h.hook_id, h.result])) }
  }
  const cut = job.formats_truncated?.[format]
  if (cut) return { bytes: await artifactBytes(api, jobId, cut.artifact_id) }
  const value = job.formats?.[format]
  if (value === null || value === undefined) {
    throw new ApiError(`job ${jobId} has no ${format}: the page gave none (${format === 'json' ? 'the answer is not JSON' : 'the answer is not HTML'})`, EXIT.failed)
  }
  return typeof value === 'string' ? { text: value } : { json: value }
}
