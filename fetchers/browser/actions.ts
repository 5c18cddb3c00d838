import type { Action } from '../../domain/job/spec.js'
import type { PageSession } from './driver.js'
import { describeError, isTimeoutError, JobFailure } from './failures.js'
import { SCROLL_DOWN } from './in-page.js'

/** How long a click or fill waits for its element (bounded by what is left of the job's time). */
export const ACTION_ELEMENT_TIMEOUT_MS = 5_000
/** After a click, how long a navigation it started may take to load. */
export const AFTER_CLICK_LOAD_MS = 10_000

export const describeAction = (action: Action): string => {
  switch (action.type) {
    case 'click': return `click '${action.selector}'`
    case 'fill': return `fill '${action.selector}'`
    case 'scroll': return `scroll ${action.direction}`
    case 'wait': return `wait ${action.timeout_ms} ms`
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs the job's actions in order. The first that fails stops the job with `action_failed`, and the message names
 * its index and what it was, e.g. "actions[2] (click '#missing') failed: no element matched within 5000 ms".
 * Errors from a dead browser are passed through so they are reported as a crash, not as the action's fault.
 */
export const runActions = async (
  session: PageSession, actions: readonly Action[], remainingMs: () => number, isGone: (error: unknown) => boolean,
): Promise<number> => {
  for (const [index, action] of actions.entries()) {
    const timeout = Math.max(1, Math.min(ACTION_ELEMENT_TIMEOUT_MS, remainingMs()))
    try {
      switch (action.type) {
        case 'click':
          await session.click(action.selector, timeout)
          await session.waitForLoad(Math.max(1, Math.min(AFTER_CLICK_LOAD_MS, remainingMs())))
          break
        case 'fill':
          await session.fill(action.selector, action.value, timeout)
          break
        case 'scroll':
          await session.evaluate(SCROLL_DOWN)
          break
        case 'wait':
          await sleep(Math.min(action.timeout_ms, Math.max(0, remainingMs())))
          break
      }
    } catch (error) {
      if (isGone(error)) throw error
      const why = isTimeoutError(error) && (action.type === 'click' || action.type === 'fill')
        ? `no actionable element matched within ${timeout} ms`
        : describeError(error)
      throw new JobFailure('action_failed', `actions[${index}] (${describeAction(action)}) failed: ${why}`)
    }
  }
  return actions.length
}
