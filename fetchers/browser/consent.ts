/**
 * The `isdcac` extension slug ("I still don't care about cookies"), built in: accepts consent banners so they neither
 * cover the page nor block actions. Known consent-management platforms are matched by their accept buttons;
 * other banners by an accept-like button inside an element whose id or class speaks of cookies or consent.
 */
export const KNOWN_ACCEPT_SELECTORS: readonly string[] = [
  '#onetrust-accept-btn-handler', '#accept-recommended-btn-handler',
  '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll', '#CybotCookiebotDialogBodyButtonAccept',
  '#didomi-notice-agree-button', '.didomi-continue-without-agreeing',
  '.qc-cmp2-summary-buttons button[mode="primary"]', '.fc-cta-consent', '.fc-button.fc-cta-consent',
  '#truste-consent-button', '.trustarc-agree-btn', '.osano-cm-accept-all', '.osano-cm-accept',
  '[data-testid="uc-accept-all-button"]', '#uc-btn-accept-banner', '.cmpboxbtnyes', '#cmpbntyestxt',
  '.cc-allow', '.cc-accept', '.cc-btn.cc-dismiss', '#cookie-law-info-bar #cookie_action_close_header',
  '.cky-btn-accept', '#wt-cli-accept-all-btn', '.iubenda-cs-accept-btn', '#sp-cc-accept', 'button#L2AGLb',
  '.js-accept-cookies', '[data-cookiebanner="accept_button"]', '[data-action="accept-all"]', '#consent_prompt_submit',
  '.sp_choice_type_11', 'button[title="Accept all"]', 'button[aria-label="Accept all"]',
]

const ACCEPT_TEXT = String.raw`^\s*(accept( all)?( cookies)?|accept all cookies|allow( all)?( cookies)?|agree( and close)?|i agree|i accept|got it|ok(ay)?|yes,? i agree|understood|alle akzeptieren|akzeptieren|zustimmen|tout accepter|accepter|j'accepte|aceptar( todo)?|accetta( tutto)?|accetto|aceitar|alles accepteren|akceptuj[eę]?)\s*[.!]?\s*$`
const CONTAINER_HINT = String.raw`cookie|consent|gdpr|privacy|cmp|banner|notice`

/** Answers the accept controls it clicked in this frame (empty when there was no banner). */
export const DISMISS_CONSENT = `(() => {
  const clicked = [];
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const click = (el, label) => { try { el.click(); clicked.push(label); } catch (e) {} };
  for (const selector of ${JSON.stringify(KNOWN_ACCEPT_SELECTORS)}) {
    for (const el of document.querySelectorAll(selector)) if (visible(el)) { click(el, selector); break; }
  }
  if (clicked.length === 0) {
    const accept = new RegExp(${JSON.stringify(ACCEPT_TEXT)}, 'i');
    const hint = new RegExp(${JSON.stringify(CONTAINER_HINT)}, 'i');
    for (const el of document.querySelectorAll('button, a[role="button"], [role="button"], input[type="button"], input[type="submit"]')) {
      const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim();
      if (!text || text.length > 40 || !accept.test(text) || !visible(el)) continue;
      let node = el.parentElement, inBanner = false;
      for (let depth = 0; node && depth < 8 && !inBanner; depth++, node = node.parentElement) {
        inBanner = hint.test((node.id || '') + ' ' + (typeof node.className === 'string' ? node.className : '') + ' ' + (node.getAttribute('aria-label') || ''));
      }
      if (inBanner) { click(el, 'text:' + text.slice(0, 40)); break; }
    }
  }
  return clicked;
})()`
