/**
 * Regex hooks run with RE2 semantics (re2js, a pure-JavaScript port of RE2): matching takes time linear in the text,
 * whatever the pattern, so no pattern can backtrack catastrophically. Patterns use JavaScript syntax (named groups
 * `(?<name>...)` included); what RE2 cannot run (backreferences such as `\1`, lookahead) is refused at submission
 * with `regex_unsupported`. Lookbehind without captures is supported.
 */
import { RE2JS } from 're2js'

/**
 * `m` (multiline: `^` and `$` match at line ends, since the visible text a pattern searches has one line per block
 * element) and linear-time lookbehind.
 */
const FLAGS = RE2JS.MULTILINE | RE2JS.LOOKBEHINDS

/** The compiled pattern; throws on a pattern RE2 cannot run. */
export const compileHookPattern = (pattern: string): RE2JS => RE2JS.compile(RE2JS.translateRegExp(pattern), FLAGS)

/** `\k<` after an even number of backslashes (an escape, not an escaped backslash followed by `k`). */
const NAMED_BACKREFERENCE = /(?:^|[^\\])(?:\\\\)*\\k</

export type PatternCheck =
  | { readonly ok: true; readonly groups: number }
  | { readonly ok: false; readonly code: 'invalid_pattern' | 'regex_unsupported'; readonly message: string }

/** `invalid_pattern`: not a regular expression at all; `regex_unsupported`: valid JavaScript that RE2 cannot run. */
export const checkHookPattern = (pattern: string): PatternCheck => {
  try {
    new RegExp(pattern, 'm') // compiling only (never matching): a syntax check
  } catch (e) {
    return { ok: false, code: 'invalid_pattern', message: `pattern does not compile: ${(e as Error).message}` }
  }
  // re2js's translation reads a named backreference `\k<name>` as the literal text `k<name>`: refused, not changed.
  if (NAMED_BACKREFERENCE.test(pattern)) {
    return { ok: false, code: 'regex_unsupported', message: 'patterns run with RE2 semantics (no backreferences or lookahead): \\k<name> is a backreference' }
  }
  try {
    return { ok: true, groups: compileHookPattern(pattern).groupCount() }
  } catch (e) {
    const reason = (e as Error).message.replace(/^error parsing regexp:\s*/, '')
    return { ok: false, code: 'regex_unsupported', message: `patterns run with RE2 semantics (no backreferences or lookahead): ${reason}` }
  }
}
