/**
 * Scripts evaluated inside pages. They are source text, not functions: a bundler's helpers (e.g. `__name`) would
 * otherwise end up in code that runs where they do not exist.
 */

/**
 * Scrolls to the bottom in viewport-sized steps so lazy content (IntersectionObserver, scroll listeners) loads.
 * Stops when the bottom stayed the bottom for a few steps (the page stopped growing), or at the step or time limit.
 * Then returns to the top, where a screenshot is taken.
 */
export const autoScroll = (maxSteps: number, maxMs: number, stepDelayMs = 120) => `(async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const root = document.scrollingElement || document.documentElement;
  if (!root) return { steps: 0, height: 0 };
  const started = Date.now();
  let steps = 0, stableAtBottom = 0, lastHeight = root.scrollHeight;
  while (steps < ${maxSteps} && Date.now() - started < ${maxMs}) {
    window.scrollBy(0, Math.max(200, window.innerHeight));
    steps++;
    await sleep(${stepDelayMs});
    const height = root.scrollHeight;
    const atBottom = window.scrollY + window.innerHeight >= height - 2;
    if (atBottom && height === lastHeight) { if (++stableAtBottom >= 3) break; } else stableAtBottom = 0;
    lastHeight = height;
  }
  window.scrollTo(0, 0);
  return { steps, height: root.scrollHeight };
})()`

/** The `scroll` action: one viewport down. */
export const SCROLL_DOWN = `(async () => { window.scrollBy(0, Math.max(200, window.innerHeight)); await new Promise((r) => setTimeout(r, 150)); return window.scrollY })()`

export const READY_STATE = 'document.readyState'

/** Every a href, absolute (the DOM resolves them against the document's base URL). */
export const LINKS = `Array.from(document.querySelectorAll('a[href]'), (a) => a.href).filter((href) => typeof href === 'string' && href !== '')`

/** Visible text as rendered (innerText skips hidden elements, scripts and styles). */
export const VISIBLE_TEXT = `document.body ? document.body.innerText : ''`

export const DOCUMENT_TITLE = 'document.title'
