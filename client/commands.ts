import { flag, oneOf, onlyFlags, pairs, positiveInteger, UsageError, type Args } from './args.js'
import type { Api } from './http.js'
import { awaitResult, requireSucceeded, type Progress } from './jobs.js'
import type { Output } from './scrape.js'
import { scrape, TIERS } from './scrape.js'

/** One command of `scrapeworks`: its words, its usage line, and what it prints. */
export interface ClientCommand {
  readonly words: readonly string[]
  readonly usage: string
  readonly run: (api: Api, args: Args, progress: Progress) => Promise<Output>
}

const one = (args: Args, what: string): string => {
  const rest = args.words.slice(2)
  if (rest.length !== 1) throw new UsageError(`${args.words.slice(0, 2).join(' ')} takes one ${what}`)
  return encodeURIComponent(rest[0]!)
}

const none = (args: Args) => {
  if (args.words.length > 2) throw new UsageError(`${args.words.slice(0, 2).join(' ')} takes no argument`)
}

const query = (entries: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams(Object.entries(entries).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]))
  return q.size > 0 ? `?${q}` : ''
}

/** A list as lines of tab-separated columns, or its items as JSON with --json. */
const listing = (args: Args, items: readonly any[], columns: (item: any) => readonly unknown[]): Output =>
  args.switches.has('json') ? { json: items } : { text: items.map((item) => columns(item).map((c) => c ?? '-').join('\t')).join('\n') }

/**
 * `--input key=value` (a string) and `--input key:=JSON` (a number, boolean, list...): a recipe's input fields.
 * `:=` is looked for first, so a JSON value may hold `=`.
 */
const recipeInput = (args: Args): Record<string, unknown> => Object.fromEntries((args.flags.get('input') ?? []).map((pair) => {
  const json = /^([^:=]+):=(.*)$/s.exec(pair)
  if (json) {
    try {
      return [json[1]!, JSON.parse(json[2]!)]
    } catch {
      throw new UsageError(`--input ${json[1]}:= needs a JSON value, got ${json[2]}`)
    }
  }
  return pairs({ ...args, flags: new Map([['input', [pair]]]) }, 'input')[0]!
}))

export const CLIENT_COMMANDS: readonly ClientCommand[] = [
  {
    words: ['scrape'],
    usage: 'scrape URL [--tier light|standard|stealth] [--format markdown|html|text|json|links] [--extract NAME=CSS ...] [-o FILE]',
    run: scrape,
  },
  {
    words: ['jobs', 'list'],
    usage: 'jobs list [--status queued|running|succeeded|failed] [--tier T] [--tag TAG] [--page N] [--json]',
    run: async (api, args) => {
      onlyFlags(args, ['status', 'tier', 'tag', 'page', 'output']); none(args)
      const q = query({ status: flag(args, 'status'), job_type: flag(args, 'tier'), tag: flag(args, 'tag'), page: positiveInteger('page', flag(args, 'page')) })
      const { body } = await api.call('GET', `/v1/jobs${q}`)
      return listing(args, body.items, (j) => [j.job_id, j.status, j.job_type, j.created_at, j.target_url])
    },
  },
  {
    words: ['jobs', 'get'],
    usage: 'jobs get JOB_ID',
    run: async (api, args) => { onlyFlags(args, ['output']); return { json: (await api.call('GET', `/v1/jobs/${one(args, 'job id')}`)).body } },
  },
  {
    words: ['jobs', 'result'],
    usage: 'jobs result JOB_ID (waits for the job to end)',
    run: async (api, args, progress) => {
      onlyFlags(args, ['output'])
      return { json: await awaitResult(api, decodeURIComponent(one(args, 'job id')), progress) }
    },
  },
  {
    words: ['monitors', 'list'],
    usage: 'monitors list [--page N] [--json]',
    run: async (api, args) => {
      onlyFlags(args, ['page', 'output']); none(args)
      const { body } = await api.call('GET', `/v1/monitors${query({ page: positiveInteger('page', flag(args, 'page')) })}`)
      return listing(args, body.items, (m) => [m.id, m.status, m.cron, m.name, m.target_url])
    },
  },
  {
    words: ['monitors', 'create'],
    usage: 'monitors create --name NAME --cron "MIN HOUR DOM MON DOW" --url URL [--tier T] [--timezone ZONE]',
    run: async (api, args) => {
      onlyFlags(args, ['name', 'cron', 'url', 'tier', 'timezone', 'output']); none(args)
      const required = (name: string) => flag(args, name) ?? (() => { throw new UsageError(`monitors create needs --${name}`) })()
      const timezone = flag(args, 'timezone')
      const body = {
        name: required('name'), cron: required('cron'), target_url: required('url'),
        job_type: oneOf('tier', flag(args, 'tier'), TIERS, 'light'), ...(timezone ? { timezone } : {}),
      }
      return { json: (await api.call('POST', '/v1/monitors', body)).body }
    },
  },
  {
    words: ['monitors', 'runs'],
    usage: 'monitors runs MONITOR_ID [--page N] [--json]',
    run: async (api, args) => {
      onlyFlags(args, ['page', 'output'])
      const { body } = await api.call('GET', `/v1/monitors/${one(args, 'monitor id')}/runs${query({ page: positiveInteger('page', flag(args, 'page')) })}`)
      return listing(args, body.items, (r) => [r.run_id, r.status, r.scheduled_for ?? r.fired_at, r.job_id])
    },
  },
  {
    words: ['recipes', 'list'],
    usage: 'recipes list [--json]',
    run: async (api, args) => {
      onlyFlags(args, ['output']); none(args)
      const { body } = await api.call('GET', '/v1/recipes')
      return listing(args, body.items, (r) => [r.slug, r.engine, `${r.credits_per_unit} credits/${r.billing_unit}`, r.title])
    },
  },
  {
    words: ['recipes', 'run'],
    usage: 'recipes run SLUG --input KEY=VALUE ... [--input KEY:=JSON ...] (waits, prints the output)',
    run: async (api, args, progress) => {
      onlyFlags(args, ['input', 'output'])
      const slug = one(args, 'recipe slug')
      const { body } = await api.call('POST', `/v1/recipes/${slug}/runs`, { input: recipeInput(args) })
      progress(`job ${body.job_id} submitted (recipe ${decodeURIComponent(slug)})`)
      const job = await awaitResult(api, body.job_id, progress)
      requireSucceeded(job)
      return { json: job.result_url ? { result_url: job.result_url, expires_at: job.result_url_expires_at } : job.output }
    },
  },
]
