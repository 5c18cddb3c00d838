import { randomUUID } from 'node:crypto'
import { BrowserUnavailable } from './driver.js'
import { ensureExecutable } from './executable.js'
import { describeError } from './failures.js'
import { findBrowserPid } from './process-tree.js'
import { acquireDisplay, type DisplayLease } from './virtual-display.js'

/** What both drivers' browsers offer that launching needs. */
interface Disconnectable {
  on(event: 'disconnected', listener: () => void): unknown
}

/**
 * The launch steps both drivers share: check the binary, lease a virtual display for headed browsers, start the
 * browser with a marker flag (`marker`) so its process can be found, and free the display when the browser goes.
 * Any start failure becomes BrowserUnavailable, which fails the job with `browser_unavailable`.
 */
export const launchBrowser = async <B extends Disconnectable>(
  options: { readonly executablePath: string; readonly headless: boolean },
  start: (launch: { readonly marker: string; readonly display: DisplayLease | undefined }) => Promise<B>,
): Promise<{ readonly browser: B; readonly pid: number | undefined }> => {
  await ensureExecutable(options.executablePath)
  const marker = randomUUID()
  let display: DisplayLease | undefined
  let browser: B
  try {
    if (!options.headless) display = await acquireDisplay()
    browser = await start({ marker, display })
  } catch (error) {
    display?.release()
    throw error instanceof BrowserUnavailable ? error : new BrowserUnavailable(`Chromium could not be started from ${options.executablePath}: ${describeError(error)}`)
  }
  browser.on('disconnected', () => display?.release())
  return { browser, pid: await findBrowserPid(marker) }
}
