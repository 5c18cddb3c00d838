/**
 * The labelled corpus of issue 35: page structures of our own (a news page, a product page, a changelog with docs,
 * a JSON API) served by a local fixture site, each watched by a real monitor created with default detection (no
 * options), fired by the scheduler on a manual clock. Every scheduled instant applies one labelled transition to
 * each page: noise only (one kind of noise each), or a meaningful edit made together with the noise a live page
 * shows at the same time (every noise value moves). The test prints false alerts, missed changes and the diffs,
 * and asserts that no noise-only transition alerts and no meaningful edit is missed.
 */
import t from 'tap'
import { makeManualClock } from '../../infra/clock/manual.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService, waitFor } from '../helpers/service.js'

/** The run-varying values of a page; a noise transition moves one of them, a meaningful one moves them all. */
interface Noise { clock: number; day: number; ago: number; views: number; viewers: number; token: number; keyOrder: number }
type NoiseKind = keyof Noise

interface Transition<S> {
  readonly label: string
  /** The noise kind moved (noise only), or null for a meaningful edit (every noise value moves with it). */
  readonly noise: NoiseKind | null
  readonly edit?: (s: S) => S
  /** The exact diff a meaningful edit should give: only its own lines. */
  readonly diff?: readonly string[]
}

interface Page<S> { readonly path: string; readonly contentType: string; readonly render: (s: S, n: Noise) => string; readonly start: S; readonly transitions: readonly Transition<S>[] }

const pad = (n: number) => String(n).padStart(2, '0')
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const isoOf = (n: Noise) => `2026-06-${pad(1 + (n.day % 28))}T${pad(8 + (n.clock % 12))}:${pad((n.clock * 7) % 60)}:${pad((n.clock * 13) % 60)}Z`
const clockOf = (n: Noise) => `${pad(8 + (n.clock % 12))}:${pad((n.clock * 7) % 60)}`
const longDateOf = (n: Noise) => `${WEEKDAYS[n.day % 7]}, ${MONTHS[(5 + n.day) % 12]} ${1 + (n.day % 28)}, 2026`
const agoOf = (n: Noise, i: number) => [`${3 + n.ago + i} minutes ago`, `${1 + ((n.ago + i) % 5)} hours ago`, 'just now', 'an hour ago'][(n.ago + i) % 4]
const countOf = (n: number, seed: number) => (1_000 + n * 337 + seed * 91).toLocaleString('en-US')
const hexOf = (n: number, seed: number) => ((n + 1) * 2_654_435_761 + seed * 40_503).toString(16).padStart(8, 'a').slice(-8).replace(/^\d/, 'f')
const uuidOf = (n: number, seed: number) => `${hexOf(n, seed)}-${hexOf(n, seed + 1).slice(0, 4)}-4${hexOf(n, seed + 2).slice(0, 3)}-9${hexOf(n, seed + 3).slice(0, 3)}-${hexOf(n, seed + 4)}${hexOf(n, seed + 5).slice(0, 4)}`

const html = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<script>window.__nonce = "${Math.random()}"</script></head><body>${body}</body></html>`

interface News { readonly headlines: readonly string[] }
const news: Page<News> = {
  path: '/news', contentType: 'text/html; charset=utf-8',
  start: { headlines: ['Council approves new tram line', 'Storm expected over the weekend', 'Local bakery wins national prize'] },
  render: (s, n) => html('Daily Courier', `<header><nav><a href="/">Home</a> <a href="/world">World</a></nav>
<p>${longDateOf(n)} · ${clockOf(n)} UTC</p></header><main><h1>Daily Courier</h1><ul>
${s.headlines.map((h, i) => `<li><h2>${h}</h2><p>${agoOf(n, i)} · ${countOf(n.views, i)} views</p></li>`).join('\n')}
</ul><p>${n.viewers + 40} readers online</p></main>
<footer><p>Edition built ${hexOf(n.token, 7)} · request ${uuidOf(n.token, 3)}</p><p>Styles /static/site.css?v=${hexOf(n.token, 9)}</p></footer>`),
  transitions: [
    { label: 'the clock ticks', noise: 'clock' },
    { label: 'the date turns', noise: 'day' },
    { label: 'relative times age', noise: 'ago' },
    { label: 'view counters grow', noise: 'views' },
    { label: 'readers online change', noise: 'viewers' },
    { label: 'build hash, request id, cache-buster change', noise: 'token' },
    {
      label: 'a new headline on top', noise: null, edit: (s) => ({ headlines: ['Mayor resigns after audit', ...s.headlines] }),
      diff: ['+Mayor resigns after audit', '+‹ago› · ‹n› views'],
    },
    {
      label: 'a headline corrected', noise: null, edit: (s) => ({ headlines: s.headlines.map((h) => h.replace('Storm', 'Heavy storm')) }),
      diff: ['-Storm expected over the weekend', '+Heavy storm expected over the weekend'],
    },
  ],
}

interface Product { readonly price: string; readonly stock: string; readonly left: number }
const product: Page<Product> = {
  path: '/product', contentType: 'text/html; charset=utf-8',
  start: { price: '$44.95', stock: 'In stock', left: 3 },
  render: (s, n) => html('Trail shoe', `<main><h1>Trail shoe X2</h1>
<p class="price">Price: ${s.price} · checked at ${clockOf(n)}</p><p>${s.stock}</p><p>Only ${s.left} left</p>
<p>${n.viewers + 3} people are viewing this right now</p><p>Sold ${countOf(n.views, 1)} times · ${countOf(n.views, 2)} likes</p>
<p>Offer valid until ${longDateOf(n)}</p><p>Last restocked ${agoOf(n, 0)}</p><p>Cart session ${uuidOf(n.token, 1)}</p></main>`),
  transitions: [
    { label: '"N people are viewing" changes', noise: 'viewers' },
    { label: 'the price-check clock ticks (same line as the price)', noise: 'clock' },
    { label: 'sold and like counters grow', noise: 'views' },
    { label: 'the offer date moves', noise: 'day' },
    { label: 'the restock time ages', noise: 'ago' },
    { label: 'the cart session id changes', noise: 'token' },
    {
      label: 'the price drops (next to the clock)', noise: null, edit: (s) => ({ ...s, price: '$39.95' }),
      diff: ['-Price: $44.95 · checked at ‹time›', '+Price: $39.95 · checked at ‹time›'],
    },
    { label: 'out of stock', noise: null, edit: (s) => ({ ...s, stock: 'Out of stock' }), diff: ['-In stock', '+Out of stock'] },
    { label: 'fewer left (a count that is not a counter)', noise: null, edit: (s) => ({ ...s, left: 1 }), diff: ['-Only 3 left', '+Only 1 left'] },
  ],
}

interface Changelog { readonly releases: readonly { readonly version: string; readonly date: string; readonly notes: readonly string[] }[] }
const changelog: Page<Changelog> = {
  path: '/docs/changelog', contentType: 'text/html; charset=utf-8',
  start: { releases: [
    { version: 'v2.3.10', date: '2026-05-28', notes: ['Fixed retries of webhooks', 'Faster exports'] },
    { version: 'v2.3.9', date: '2026-05-20', notes: ['New CSV options'] },
  ] },
  render: (s, n) => html('Changelog', `<nav><a href="/docs">Docs</a></nav><main><h1>Changelog</h1>
<p>Page generated ${isoOf(n)} (build ${hexOf(n.token, 2)})</p><p>Docs updated ${agoOf(n, 1)}</p>
${s.releases.map((r) => `<section><h2>${r.version} — ${r.date}</h2><ul>${r.notes.map((x) => `<li>${x}</li>`).join('')}</ul></section>`).join('\n')}
<pre>npm install scrapeworks@${s.releases[0]!.version.slice(1)}</pre></main>`),
  transitions: [
    { label: 'generation timestamp moves', noise: 'clock' },
    { label: 'generation day moves', noise: 'day' },
    { label: '"updated N hours ago" ages', noise: 'ago' },
    { label: 'build hash changes', noise: 'token' },
    {
      label: 'a new release', noise: null,
      edit: (s) => ({ releases: [{ version: 'v2.4.0', date: '2026-06-02', notes: ['Quiet change detection'] }, ...s.releases] }),
      diff: ['+v2.4.0 — ‹date›', '+Quiet change detection', '-npm install scrapeworks@2.3.10', '+npm install scrapeworks@2.4.0'],
    },
    {
      label: 'a note reworded', noise: null,
      edit: (s) => ({ releases: s.releases.map((r) => ({ ...r, notes: r.notes.map((x) => x.replace('Faster exports', 'Exports twice as fast')) })) }),
      diff: ['-Faster exports', '+Exports twice as fast'],
    },
  ],
}

interface Api { readonly items: readonly { readonly id: number; readonly name: string; readonly price: number; readonly tags: readonly string[] }[] }
const shuffle = <T>(entries: T[], order: number) => (order % 2 === 0 ? entries : [...entries].reverse())
const api: Page<Api> = {
  path: '/api/v1/products', contentType: 'application/json; charset=utf-8',
  start: { items: [{ id: 1, name: 'Trail shoe', price: 44.95, tags: ['outdoor'] }, { id: 2, name: 'Rain jacket', price: 89, tags: ['outdoor', 'rain'] }] },
  render: (s, n) => JSON.stringify(Object.fromEntries(shuffle([
    ['meta', Object.fromEntries(shuffle([
      ['requestId', uuidOf(n.token, 5)], ['server_time', isoOf(n)], ['generated', Date.UTC(2026, 5, 1 + n.day, n.clock)],
      ['took_ms', 3 + ((n.clock * 7) % 40)], ['etag', hexOf(n.token, 6)],
    ], n.keyOrder))],
    ['stats', { views: 1_000 + n.views * 17, online: n.viewers + 5 }],
    ['items', s.items.map((item) => Object.fromEntries(shuffle(Object.entries(item), n.keyOrder)))],
  ] as [string, unknown][], n.keyOrder))),
  transitions: [
    { label: 'request id and etag change', noise: 'token' },
    { label: 'server time and took_ms change', noise: 'clock' },
    { label: 'view and online counters change', noise: 'views' },
    { label: 'key order changes', noise: 'keyOrder' },
    { label: 'generation day moves', noise: 'day' },
    {
      label: 'a price changes', noise: null, edit: (s) => ({ items: s.items.map((i) => (i.id === 2 ? { ...i, price: 79 } : i)) }),
      diff: ['-$.items[1].price: 89', '+$.items[1].price: 79'],
    },
    {
      label: 'an item is appended', noise: null,
      edit: (s) => ({ items: [...s.items, { id: 3, name: 'Wool socks', price: 12.5, tags: [] }] }),
      diff: ['+$.items[2].id: 3', '+$.items[2].name: "Wool socks"', '+$.items[2].price: 12.5', '+$.items[2].tags: []'],
    },
    {
      label: 'an item is inserted first', noise: null,
      edit: (s) => ({ items: [{ id: 4, name: 'Cap', price: 15, tags: ['sun'] }, ...s.items] }),
      diff: ['+$.items[0].id: 4', '+$.items[0].name: "Cap"', '+$.items[0].price: 15', '+$.items[0].tags[0]: "sun"'],
    },
    {
      label: 'a tag is added to an item', noise: null, edit: (s) => ({ items: s.items.map((i) => (i.id === 1 ? { ...i, tags: [...i.tags, 'sale'] } : i)) }),
      diff: ['+$.items[1].tags[1]: "sale"'],
    },
    {
      label: 'an item is removed from the middle', noise: null, edit: (s) => ({ items: s.items.filter((i) => i.id !== 2) }),
      diff: ['-$.items[2].id: 2', '-$.items[2].name: "Rain jacket"', '-$.items[2].price: 79', '-$.items[2].tags[0]: "outdoor"', '-$.items[2].tags[1]: "rain"'],
    },
  ],
}

const pages = { news, product, changelog, api } as Record<string, Page<unknown>>
const state = Object.fromEntries(Object.entries(pages).map(([name, page]) => [name, {
  content: page.start, noise: { clock: 0, day: 0, ago: 0, views: 0, viewers: 0, token: 0, keyOrder: 0 } as Noise,
}]))

const site = await startFixtureSite(Object.fromEntries(Object.entries(pages).map(([name, page]) => [page.path, (_req, res) => {
  res.writeHead(200, { 'content-type': page.contentType })
  res.end(page.render(state[name]!.content, state[name]!.noise))
}])))
const clock = makeManualClock('2026-06-01T09:59:30Z')
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], clock, env: { SCHEDULER_POLL_MS: '20' } })
t.teardown(async () => { await svc.close(); await site.close() })
const org = await svc.createOrg('pro')

const monitorOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}`, { key: org.key })).body
const changesOf = async (id: string) => (await svc.api('GET', `/v1/monitors/${id}/changes`, { key: org.key })).body
const diffOf = async (id: string, changeId: string) => (await svc.api('GET', `/v1/monitors/${id}/changes/${changeId}/diff`, { key: org.key })).text
const create = async (name: string, page: Page<unknown>, detection: Record<string, unknown>) => {
  const answer = await svc.api('POST', '/v1/monitors', {
    key: org.key, body: { name, cron: '*/15 * * * *', timezone: 'UTC', job_type: 'light', target_url: `${site.origin}${page.path}`, detection },
  })
  if (answer.status !== 201) throw new Error(`monitor not created: ${answer.text}`)
  return answer.body.id as string
}
/** Default detection: a block with no options at all. */
const ids: Record<string, string> = {}
/** The same pages with every noise step off: the corpus's noise is real noise (the figures before noise removal). */
const loud: Record<string, string> = {}
for (const [name, page] of Object.entries(pages)) {
  ids[name] = await create(name, page, {})
  loud[name] = await create(`${name} (noise off)`, page, { noise: false })
}

let instant = Date.parse('2026-06-01T10:00:00Z')
const fireAndEvaluate = async () => {
  const at = new Date(instant).toISOString()
  clock.set(at)
  await waitFor(async () => {
    for (const id of [...Object.values(ids), ...Object.values(loud)]) if ((await monitorOf(id)).detection.health.last_checked_at !== at) return false
    return true
  }, 60_000)
  instant += 15 * 60_000
}

t.test('default detection: the baselines, JSON read as JSON, every noise step on and shown', async (t) => {
  await fireAndEvaluate()
  for (const [name, id] of Object.entries(ids)) {
    const monitor = await monitorOf(id)
    t.equal(monitor.detection.health.status, 'ok', `${name}: health ok (the JSON API is not unreadable)`)
    t.match(monitor.detection, { mode: 'text', noise: { dates: true, times: true, relative_times: true, counters: true, tokens: true } }, `${name}: text mode, all noise steps`)
    t.equal((await changesOf(id)).total, 0, `${name}: a baseline is no change`)
  }
})

t.test('the corpus: no noise-only transition alerts, no meaningful edit is missed', async (t) => {
  const rounds = Math.max(...Object.values(pages).map((p) => p.transitions.length))
  const falseAlerts: string[] = []
  const missed: string[] = []
  const inexact: string[] = []
  let noiseCount = 0
  let meaningfulCount = 0
  let exact = 0
  let loudFalseAlerts = 0
  const noiseKinds = new Set<string>()
  for (let round = 0; round < rounds; round++) {
    const due: [string, Transition<unknown>, number, number][] = []
    for (const [name, page] of Object.entries(pages)) {
      const transition = page.transitions[round]
      if (!transition) continue
      const current = state[name]!
      const moved = transition.noise === null ? (Object.keys(current.noise) as NoiseKind[]) : [transition.noise]
      for (const kind of moved) current.noise[kind]++
      if (transition.edit) current.content = transition.edit(current.content)
      due.push([name, transition, (await changesOf(ids[name]!)).total, (await changesOf(loud[name]!)).total])
    }
    await fireAndEvaluate()
    for (const [name, transition, before, loudBefore] of due) {
      const changes = await changesOf(ids[name]!)
      const loudAlerted = (await changesOf(loud[name]!)).total > loudBefore
      const label = `${name}: ${transition.label}`
      const diff = changes.total > before ? await diffOf(ids[name]!, changes.items[0].change_id) : null
      if (transition.noise !== null) {
        noiseCount++
        noiseKinds.add(`${name}/${transition.noise}`)
        if (diff !== null) falseAlerts.push(`${label}\n${diff}`)
        t.equal(diff, null, `noise only, no change: ${label}`)
        if (loudAlerted) loudFalseAlerts++
        // Canonical JSON never saw key order; every other kind is noise a monitor without noise removal alerts on.
        if (transition.noise !== 'keyOrder') t.ok(loudAlerted, `with noise off, it alerts: ${label}`)
      } else {
        meaningfulCount++
        if (diff === null) missed.push(label)
        t.not(diff, null, `meaningful, one change: ${label}`)
        t.equal(changes.total, before + (diff === null ? 0 : 1), `${label}: exactly one change`)
        if (diff !== null && diff === transition.diff!.join('\n')) exact++
        else if (diff !== null) inexact.push(`${label}\n  got:\n${diff.replace(/^/gm, '    ')}\n  wanted:\n${transition.diff!.map((l) => `    ${l}`).join('\n')}`)
        if (diff !== null) t.comment(`diff of ${label}:\n${diff}`)
      }
    }
  }
  t.comment(`corpus: ${noiseCount} noise-only transitions (${noiseKinds.size} page/noise kinds), ${meaningfulCount} meaningful edits`)
  t.comment(`false alerts with every noise step off: ${loudFalseAlerts}/${noiseCount}`)
  t.comment(`false alerts: ${falseAlerts.length}/${noiseCount}${falseAlerts.map((f) => `\n  ${f}`).join('')}`)
  t.comment(`missed changes: ${missed.length}/${meaningfulCount}${missed.map((m) => `\n  ${m}`).join('')}`)
  t.comment(`exact diffs: ${exact}/${meaningfulCount}${inexact.map((m) => `\n  ${m}`).join('')}`)
  t.equal(falseAlerts.length, 0, 'no noise-only transition alerts')
  t.equal(missed.length, 0, 'no meaningful change is missed')
})

t.test('noise steps are switchable and validated; switching them resets the baseline', async (t) => {
  const id = ids.product!
  const bad = await svc.api('PATCH', `/v1/monitors/${id}`, { key: org.key, body: { detection: { noise: { dates: 'yes', clocks: true } } } })
  t.equal(bad.status, 422)
  const codes = (bad.body.error.details as { field: string; code: string }[]).map((d) => `${d.field} ${d.code}`).sort()
  t.same(codes, ['detection.noise.clocks unknown_field', 'detection.noise.dates invalid_noise_step'], 'every failing step, with its code')
  const notObject = await svc.api('PATCH', `/v1/monitors/${id}`, { key: org.key, body: { detection: { noise: 'on' } } })
  t.match(notObject.body.error.details, [{ field: 'detection.noise', code: 'invalid_noise' }])
  const off = await svc.api('PATCH', `/v1/monitors/${id}`, { key: org.key, body: { detection: { noise: { times: false } } } })
  t.equal(off.status, 200, 'one step switched off')
  t.match(off.body.detection.noise, { dates: true, times: false, relative_times: true, counters: true, tokens: true }, 'only the step named changed')
  const allOff = await svc.api('PATCH', `/v1/monitors/${id}`, { key: org.key, body: { detection: { noise: false } } })
  t.same(allOff.body.detection.noise, { dates: false, times: false, relative_times: false, counters: false, tokens: false })

  const before = (await changesOf(id)).total
  state.product!.noise.clock++
  await fireAndEvaluate()
  t.equal((await changesOf(id)).total, before, 'the first run after switching is a new baseline, not a change')
  state.product!.noise.clock++
  await fireAndEvaluate()
  const changes = await changesOf(id)
  t.equal(changes.total, before + 1, 'with the steps off, the clock alone is a change')
  t.match(await diffOf(id, changes.items[0].change_id), /checked at \d\d:\d\d/, 'the diff shows the clock as written')
})
