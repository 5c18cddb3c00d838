import { Effect } from 'effect'
import { Clock } from '../ports/clock.js'

/** The current instant on the process's Clock (the API reads time through it, so a manual clock drives it in tests). */
export const currentTime = Effect.map(Clock, (clock) => clock.now())
