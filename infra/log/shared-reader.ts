import { Either } from 'effect'
import type { RecordedEvent } from '../../ports/event-store.js'
import { firstAfter } from './first-after.js'
import type { makeLogWake } from './log-wake.js'

export type LogRead = Either.Either<readonly RecordedEvent[], unknown>

export interface SharedReaderOptions {
  /** The events after a position, at most `batch` of them: at once from a store that answers synchronously. */
  readonly read: (after: number) => LogRead | Promise<LogRead>
  readonly batch: number
  readonly wake: ReturnType<typeof makeLogWake>
  readonly log: (message: string, detail?: unknown) => void
}

/**
 * Hands the events after a member's position over in order; answers the position of the last one handed (less than
 * the batch's end only when stopped). Answers at once when every event was taken at once, else a promise.
 */
export type Deliver = (events: readonly RecordedEvent[], stopped: () => boolean) => number | Promise<number>

export interface JoinOptions {
  /** Always reads alone (a reader whose batches are worth gathering, such as the embedded projections'). */
  readonly alone?: boolean
  /** After a wake, lets the appends already under way land first, so they are read as one batch. */
  readonly gather?: boolean
}

interface Member extends JoinOptions {
  readonly name: string
  readonly deliver: Deliver
  cursor: number
  stopped: boolean
}

/**
 * One reader of the log for the process's subscriptions that have caught up with it: each wake costs one read, whose
 * batch goes to every attached member in turn, instead of a read and a wait per subscription. A member behind (new,
 * or one whose dispatcher was full and so could not take a batch at once) reads alone, at its own pace, until it has
 * reached the shared reader's position, then attaches again. So a slow member never holds the others back, and each
 * member still gets every event after its position exactly once, in log order.
 */
export const makeSharedReader = ({ read, batch, wake, log }: SharedReaderOptions) => {
  const attached = new Set<Member>()
  /** Position of the last event read for the attached members (each member's own position is at least this). */
  let position = 0
  let running = false
  /** Ends the shared loop's wait for a wake (at the wake, or when its last member leaves). */
  let wakeShared: () => void = () => {}

  const waitForWake = (seen: number, setWakeUp: (wakeUp: () => void) => void) => new Promise<void>((resolve) => {
    setWakeUp(resolve)
    wake.onNext(seen, resolve)
  })

  const attach = (member: Member) => {
    if (attached.size === 0) position = member.cursor
    attached.add(member)
    if (running) return
    running = true
    void sharedLoop()
  }

  /** Gives the member the events past its position; one that cannot take them at once goes on alone. */
  const handTo = (member: Member, events: readonly RecordedEvent[]) => {
    const from = firstAfter(events, member.cursor)
    if (from === events.length) return
    const delivered = member.deliver(from === 0 ? events : events.slice(from), () => member.stopped)
    if (typeof delivered === 'number') {
      member.cursor = Math.max(member.cursor, delivered)
      return
    }
    attached.delete(member)
    alone.set(member, delivered.then((reached) => {
      member.cursor = Math.max(member.cursor, reached)
      return readAlone(member)
    }))
  }

  const sharedLoop = async () => {
    try {
      while (attached.size > 0) {
        const seen = wake.generation()
        const after = position
        const answer = read(after)
        const events = answer instanceof Promise ? await answer : answer
        // A member attached to an empty reader meanwhile moved the position: this read is not the one to hand over.
        if (after !== position) continue
        if (Either.isLeft(events)) log('the shared reader of the log could not read it', events.left)
        else if (events.right.length > 0) {
          position = events.right.at(-1)!.position
          for (const member of [...attached]) handTo(member, events.right)
          if (events.right.length === batch) continue
        }
        if (attached.size > 0) await waitForWake(seen, (wakeUp) => { wakeShared = wakeUp })
      }
    } finally {
      running = false
    }
  }

  /** A member's own reading, until it is stopped or has caught up with the shared reader. */
  const readAlone = async (member: Member): Promise<void> => {
    while (!member.stopped) {
      const seen = wake.generation()
      const answer = read(member.cursor)
      const events = answer instanceof Promise ? await answer : answer
      if (Either.isLeft(events)) log(`subscriber ${member.name} could not read the log`, events.left)
      else if (events.right.length > 0) {
        const delivered = member.deliver(events.right, () => member.stopped)
        const reached = typeof delivered === 'number' ? delivered : await delivered
        const moved = reached > member.cursor
        if (moved) member.cursor = reached
        if (moved && events.right.length === batch) continue
      }
      if (member.stopped) return
      if (Either.isRight(events) && !member.alone) {
        // At the end of the log: with the shared reader not ahead of it, the member attaches; else it reads on.
        if (attached.size === 0 || member.cursor >= position) return attach(member)
        continue
      }
      await waitForWake(seen, (wakeUp) => { wakeAlone.set(member, wakeUp) })
      if (member.gather && !member.stopped) await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Members reading alone: their reading (or the end of a delivery that waited), and how to end their wait. */
  const alone = new Map<Member, Promise<void>>()
  const wakeAlone = new Map<Member, () => void>()

  return {
    /** Reads the log after `start` for `deliver` until stopped. */
    join: (name: string, start: number, deliver: Deliver, options: JoinOptions = {}) => {
      const member: Member = { ...options, name, deliver, cursor: start, stopped: false }
      wake.join()
      alone.set(member, readAlone(member))
      return {
        stop: async () => {
          member.stopped = true
          if (attached.delete(member) && attached.size === 0) wakeShared()
          wakeAlone.get(member)?.()
          await alone.get(member)
          alone.delete(member)
          wakeAlone.delete(member)
          wake.leave()
        },
      }
    },
  }
}
