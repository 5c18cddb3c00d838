import type { Either } from 'effect'

/** A pure decider: the whole business logic of one aggregate. Time and ids arrive inside commands. */
export interface Decider<Command, Event, State, Error> {
  readonly initialState: State
  readonly evolve: (state: State, event: Event) => State
  readonly decide: (command: Command, state: State) => Either.Either<readonly Event[], Error>
}

export const fold = <Event, State>(decider: Pick<Decider<never, Event, State, never>, 'initialState' | 'evolve'>, events: readonly Event[]): State =>
  events.reduce(decider.evolve, decider.initialState)
