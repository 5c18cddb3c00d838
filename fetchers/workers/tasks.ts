/**
 * The CPU-bound work on customer input that runs in worker threads (fair-pool.ts), never on the main thread: each
 * kind with its input and output, and `runTask`, which a worker (cpu-worker.ts) calls. Inputs and outputs are plain
 * data (they cross threads by structured clone).
 */
import { diffLines, type ContentDiff } from '../../domain/detection/diff.js'
import { normalizeHtml, type Normalized } from '../../domain/detection/normalize.js'
import type { ExtractionResult, ExtractionSpec } from '../../domain/extraction.js'
import { runExtraction, type PageInput } from '../extraction/index.js'
import { selectNodes } from '../extraction/select.js'

export interface CpuTasks {
  /** A job's extraction hooks over its page. */
  readonly extract: { readonly input: { readonly spec: ExtractionSpec; readonly page: PageInput }; readonly output: ExtractionResult }
  /** Change detection's modes `text` and `selector` (domain/detection/normalize.ts). */
  readonly normalize_html: {
    readonly input: { readonly html: string; readonly selector: string | null; readonly ignoreSelectors: readonly string[] }
    readonly output: Normalized
  }
  /** Change detection's diff of two normalized contents. */
  readonly diff: { readonly input: { readonly before: readonly string[]; readonly after: readonly string[] }; readonly output: ContentDiff }
  /** The `reader` artifact (Readability and turndown). */
  readonly reader: { readonly input: { readonly html: string; readonly url: string }; readonly output: string }
}

export type CpuTaskKind = keyof CpuTasks
export type CpuTask = { readonly [K in CpuTaskKind]: { readonly kind: K; readonly input: CpuTasks[K]['input'] } }[CpuTaskKind]

const HANDLERS: { readonly [K in CpuTaskKind]: (input: CpuTasks[K]['input']) => CpuTasks[K]['output'] | Promise<CpuTasks[K]['output']> } = {
  extract: ({ spec, page }) => runExtraction(spec, page),
  normalize_html: ({ html, selector, ignoreSelectors }) => {
    try {
      return normalizeHtml(html, { selector, ignoreSelectors, select: selectNodes })
    } catch {
      // A selector over its time budget reads nothing, as a selector that matches nothing does.
      return { ok: false, reason: 'selector_missing' }
    }
  },
  diff: ({ before, after }) => diffLines(before, after),
  // Loaded on first use: Readability, linkedom and turndown would slow every worker's start for a rare artifact.
  reader: async ({ html, url }) => (await import('../browser/reader.js')).readerMarkdown(html, url),
}

export const runTask = async (task: CpuTask): Promise<unknown> => (HANDLERS[task.kind] as (input: unknown) => unknown)(task.input)
