import { Context } from 'effect'

/**
 * This process's appends, stream by stream: lets a request that waits on one stream (POST /scrapes on its job) wake
 * as soon as that stream changes instead of polling at fixed gaps. Appends made by other processes are not seen, so
 * a waiter still looks again now and then; the signal only shortens the wait, it never decides anything.
 */
export interface StreamAppendsService {
  /**
   * Calls `onAppend` with the appended events' types after each append to `stream` made through this process's event
   * store, until the returned function is called.
   */
  readonly listen: (stream: string, onAppend: (types: readonly string[]) => void) => () => void
}

export class StreamAppends extends Context.Tag('StreamAppends')<StreamAppends, StreamAppendsService>() {}
