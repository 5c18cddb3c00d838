import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound, StateConflict } from '../errors.js'
import { ScrapeCompleted, ScrapeRequested, ScrapeWaitExpired, type ScrapeEvent } from './events.js'

export type ScrapeState =
  | { readonly status: 'none' }
  | { readonly status: 'requested'; readonly completed: boolean; readonly expired: boolean }

type RequestFields = Omit<ScrapeRequested, '_tag'>
type CompletionFields = Omit<ScrapeCompleted, '_tag'>

export type ScrapeCommand =
  | ({ readonly _tag: 'RequestScrape'; readonly now: string } & RequestFields)
  | ({ readonly _tag: 'CompleteScrape'; readonly now: string } & CompletionFields)
  | { readonly _tag: 'ExpireScrapeWait'; readonly scrape_id: string; readonly waited_seconds: number; readonly now: string }

export const scrapeDecider: Decider<ScrapeCommand, ScrapeEvent, ScrapeState, NotFound | StateConflict> = {
  initialState: { status: 'none' },
  evolve: (state, event) => {
    switch (event._tag) {
      case 'ScrapeRequested':
        return { status: 'requested', completed: false, expired: false }
      case 'ScrapeCompleted':
        return state.status === 'none' ? state : { ...state, completed: true }
      case 'ScrapeWaitExpired':
        return state.status === 'none' ? state : { ...state, expired: true }
    }
  },
  decide: (command, state) => {
    if (command._tag === 'RequestScrape') {
      // Recorded by the request and again from its job's admission (the recorder's repair): the first one stays.
      if (state.status !== 'none') return Either.right([])
      const { _tag, now, ...fields } = command
      return Either.right([new ScrapeRequested(fields)])
    }
    if (state.status === 'none') return Either.left(new NotFound({ resource: 'scrape', id: command.scrape_id }))
    switch (command._tag) {
      // Completion is recorded once (by the waiting request or by the recorder, whichever comes first), expiry or not.
      case 'CompleteScrape': {
        if (state.completed) return Either.right([])
        const { _tag, now, ...fields } = command
        return Either.right([new ScrapeCompleted(fields)])
      }
      // A wait cannot expire on a scrape whose result is already recorded: the caller gets that result instead.
      case 'ExpireScrapeWait':
        if (state.completed) return Either.left(new StateConflict({ code: 'scrape_completed', message: 'the scrape already has its result' }))
        if (state.expired) return Either.right([])
        return Either.right([new ScrapeWaitExpired({ scrape_id: command.scrape_id, waited_seconds: command.waited_seconds, expired_at: command.now })])
    }
  },
}
