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

/**
 * Every a href, absolute (the DOM resolves them against the document's base URL), until their total length
 * passes `maxChars`: only that much is copied out of the page.
 */
export const links = (maxChars: number) => `(() => {
  const out = [];
  let total = 0;
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.href;
    if (typeof href !== 'string' || href === '') continue;
    total += href.length;
    if (total > ${maxChars}) break;
    out.push(href);
  }
  return out;
})()`

/** Visible text as rendered (innerText skips hidden elements, scripts and styles), cut at `maxChars`. */
export const visibleText = (maxChars: number) => `(document.body ? document.body.innerText : '').slice(0, ${maxChars})`

/**
 * The document as markup, as the drivers' content() builds it (doctype, then the root's outerHTML), or null when
 * it is longer than `maxChars`: the size is checked inside the page, so an oversized document never reaches us.
 */
export const boundedDocumentHtml = (maxChars: number) => `(() => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement ? document.documentElement.outerHTML : '';
  return doctype.length + root.length > ${maxChars} ? null : doctype + root;
})()`

/** The current document's URL and decoded body size, once its body has fully arrived (Navigation Timing). */
export const DOCUMENT_BODY_SIZE = `(() => {
  const entry = performance.getEntriesByType('navigation')[0];
  return entry && entry.responseEnd > 0 ? { url: entry.name, size: entry.decodedBodySize } : null;
})()`

export const DOCUMENT_TITLE = 'document.title'
