import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { streamCategory } from '../../domain/streams.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { PROJECTIONS } from '../../projections/index.js'
import { project, type Documents } from './projection-spec.js'

/** The event log recorded by the code of 8e97c6d and its read models (scripts/make-legacy-log.ts writes them). */
export const LEGACY_LOG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'legacy-log')

const readJson = (name: string): unknown => JSON.parse(readFileSync(join(LEGACY_LOG_DIR, name), 'utf8'))
export const legacyEvents = () => readJson('events.json') as readonly RecordedEvent[]
export const legacyReadModels = () => readJson('read-models.json') as Readonly<Record<string, Documents>>

/** By projection name, the documents each projection builds from its categories' events, one at a time in log order. */
export const projectEvery = async (events: readonly RecordedEvent[]): Promise<Record<string, Documents>> => {
  const models: Record<string, Documents> = {}
  for (const projection of PROJECTIONS) {
    models[projection.name] = await project(projection, events.filter((event) => projection.categories.includes(streamCategory(event.stream))))
  }
  return models
}
