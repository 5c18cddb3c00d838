import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { Filter } from '../ports/document-store.js'
import { BlobStore } from '../ports/blob-store.js'
import { countDocs, findDocs, getDoc } from './projection.js'
import { SCRAPES, type ScrapeDoc } from './scrapes.js'

export const SCRAPE_SORTS = { createdAt: 'created_at', completedAt: 'completed_at' } as const

export interface ScrapeListQuery {
  readonly status?: string
  readonly backend?: string
  /** Substring of the URL (case-insensitive). */
  readonly q?: string
  readonly page: number
  readonly perPage: number
  readonly sort: keyof typeof SCRAPE_SORTS
  readonly dir: 'asc' | 'desc'
}

/**
 * Scrapes are the organization's, like its jobs: every user of it sees them (the operator adds colleagues with
 * `cli user create`). Another organization's scrape is indistinguishable from a missing one.
 */
export const getScrape = (orgId: string, scrapeId: string) =>
  Effect.gen(function* () {
    const doc = yield* getDoc(SCRAPES, scrapeId)
    if (!doc || doc.org_id !== orgId) return yield* Effect.fail(new NotFound({ resource: 'scrape', id: scrapeId }))
    return doc
  })

export const listScrapes = (orgId: string, query: ScrapeListQuery) =>
  Effect.gen(function* () {
    const filter: Record<string, Filter[string]> = { org_id: orgId }
    if (query.status !== undefined) filter.status = query.status
    if (query.backend !== undefined) filter.backend = query.backend
    if (query.q !== undefined && query.q !== '') filter.url = { $contains: query.q }
    const [items, total] = yield* Effect.all([
      findDocs(SCRAPES, filter, {
        sort: [[SCRAPE_SORTS[query.sort], query.dir], ['scrape_id', query.dir]], skip: (query.page - 1) * query.perPage, limit: query.perPage,
      }),
      countDocs(SCRAPES, filter),
    ])
    return { items, total }
  })

/** A short-lived signed URL of the scrape's screenshot, or null without one (or once it was purged). */
export const screenshotUrl = (doc: ScrapeDoc, ttlSeconds: number) =>
  doc.screenshot_blob_key === null
    ? Effect.succeed(null)
    : Effect.map(Effect.flatMap(BlobStore, (blobs) => blobs.signedUrl(doc.screenshot_blob_key!, ttlSeconds, `screenshot-${doc.scrape_id}.png`)), (s) => s.url)
