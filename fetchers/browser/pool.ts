import { type LaunchedBrowser } from './driver.js'
import { treeRssMb } from './process-tree.js'
import { Semaphore } from './semaphore.js'

export interface PoolSettings {
  /** Jobs (each its own browser context) running at once in one engine. */
  readonly poolSize: number
  /** A browser process is replaced after serving this many pages (leaks and fragmentation accumulate). */
  readonly pagesPerProcess: number
  /** A browser process is replaced once its process tree grew by more than this since launch; 0 turns it off. */
  readonly memoryGrowthMb: number
  /** A browser process with no job is closed after this long. */
  readonly idleMs: number
}

export interface BrowserPoolOptions<P> extends PoolSettings {
  readonly launch: (profile: P) => Promise<LaunchedBrowser>
  /** Jobs whose profiles have the same key share browser processes (headless mode, stealth fingerprint OS). */
  readonly keyOf: (profile: P) => string
  /** Memory probe; tests inject one. */
  readonly memoryMb?: (pid: number) => Promise<number>
}

/** One job's hold on a browser process. */
export interface Lease {
  readonly browser: LaunchedBrowser
  /** True once this browser process died while the lease was held. */
  readonly died: () => boolean
  release(): Promise<void>
}

interface Entry {
  readonly serial: number
  readonly key: string
  readonly browser: LaunchedBrowser
  pages: number
  active: number
  retiring: boolean
  dead: boolean
  closing: boolean
  baselineMb: number
  idleTimer?: NodeJS.Timeout
}

export interface PoolEntryStats {
  readonly serial: number
  readonly key: string
  readonly pid: number | undefined
  readonly pages: number
  readonly active: number
  readonly retiring: boolean
}

/**
 * Browser processes of one engine: reused across jobs (each job gets a fresh context), at most `size` jobs at once,
 * replaced after N pages or on memory growth, and forgotten when they die (the next job launches a new one).
 */
export class BrowserPool<P> {
  readonly #options: BrowserPoolOptions<P>
  readonly #permits: Semaphore
  readonly #entries: Entry[] = []
  readonly #launching = new Map<string, Promise<Entry>>()
  #serial = 0
  #closed = false
  launches = 0
  /** Processes retired for their page count or memory growth (replaced by a fresh one on the next job). */
  recycles = 0

  constructor(options: BrowserPoolOptions<P>) {
    this.#options = options
    this.#permits = new Semaphore(Math.max(1, options.poolSize))
  }

  /** Waits for a free slot, then answers a live browser for the profile, launching one when needed. */
  async lease(profile: P, signal?: AbortSignal): Promise<Lease> {
    if (this.#closed) throw new Error('browser pool is closed')
    await this.#permits.acquire(signal)
    let entry: Entry
    try {
      entry = await this.#browserFor(profile)
    } catch (error) {
      this.#permits.release()
      throw error
    }
    entry.active += 1
    clearTimeout(entry.idleTimer)
    let released = false
    return {
      browser: entry.browser,
      died: () => entry.dead,
      release: async () => {
        if (released) return
        released = true
        await this.#release(entry)
      },
    }
  }

  stats(): PoolEntryStats[] {
    return this.#entries.map((e) => ({ serial: e.serial, key: e.key, pid: e.browser.pid, pages: e.pages, active: e.active, retiring: e.retiring }))
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#permits.rejectAll(new Error('browser pool is closed'))
    await Promise.allSettled([...this.#launching.values()])
    await Promise.all([...this.#entries].map((e) => this.#closeEntry(e)))
  }

  async #browserFor(profile: P): Promise<Entry> {
    const key = this.#options.keyOf(profile)
    const live = this.#entries.find((e) => e.key === key && !e.retiring && !e.dead && e.browser.isConnected())
    if (live) return live
    // Jobs arriving together for a new profile share one launch instead of starting a process each.
    let launching = this.#launching.get(key)
    if (!launching) {
      launching = this.#launch(profile, key).finally(() => this.#launching.delete(key))
      this.#launching.set(key, launching)
    }
    const entry = await launching
    return entry.dead || entry.retiring ? this.#browserFor(profile) : entry
  }

  async #launch(profile: P, key: string): Promise<Entry> {
    const browser = await this.#options.launch(profile)
    this.launches += 1
    const entry: Entry = { serial: ++this.#serial, key, browser, pages: 0, active: 0, retiring: false, dead: false, closing: false, baselineMb: 0 }
    browser.onDisconnected(() => {
      if (!entry.closing) entry.dead = true
      this.#forget(entry)
    })
    if (this.#closed) {
      await this.#closeEntry(entry)
      throw new Error('browser pool is closed')
    }
    this.#entries.push(entry)
    if (this.#options.memoryGrowthMb > 0 && browser.pid !== undefined) entry.baselineMb = await this.#memory(browser.pid)
    return entry
  }

  async #release(entry: Entry): Promise<void> {
    entry.active -= 1
    entry.pages += 1
    this.#permits.release()
    if (entry.dead || entry.closing) return
    if (entry.retiring || entry.pages >= this.#options.pagesPerProcess) return this.#retire(entry)
    const pid = entry.browser.pid
    if (this.#options.memoryGrowthMb > 0 && pid !== undefined) {
      const grown = (await this.#memory(pid)) - entry.baselineMb
      if (grown > this.#options.memoryGrowthMb) return this.#retire(entry)
    }
    if (entry.active === 0 && !entry.retiring) {
      entry.idleTimer = setTimeout(() => { if (entry.active === 0) void this.#closeEntry(entry) }, this.#options.idleMs)
      entry.idleTimer.unref()
    }
  }

  /** No new job goes to this process; it closes once its running jobs are done (the last release closes it). */
  async #retire(entry: Entry): Promise<void> {
    if (!entry.retiring) this.recycles += 1
    entry.retiring = true
    if (entry.active === 0) await this.#closeEntry(entry)
  }

  async #closeEntry(entry: Entry): Promise<void> {
    if (entry.closing) return
    entry.closing = true
    clearTimeout(entry.idleTimer)
    this.#forget(entry)
    await entry.browser.close().catch(() => {})
  }

  #forget(entry: Entry): void {
    const i = this.#entries.indexOf(entry)
    if (i >= 0) this.#entries.splice(i, 1)
  }

  #memory(pid: number): Promise<number> {
    return (this.#options.memoryMb ?? treeRssMb)(pid).catch(() => 0)
  }
}
