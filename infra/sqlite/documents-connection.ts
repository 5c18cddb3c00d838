import { CONNECTION_PRAGMAS } from './database.js'

/**
 * 64 MB of page cache (the default is 2 MB) on a connection to the read models: a replay writes every read model in
 * one transaction, and pages that do not fit are spilled and read back.
 */
export const DOCUMENTS_CACHE_PRAGMA = 'cache_size = -65536'

/** The settings of a helper thread's connection to the read models, as the store's own connection has them. */
export const DOCUMENTS_THREAD_PRAGMAS: readonly string[] = [...CONNECTION_PRAGMAS, DOCUMENTS_CACHE_PRAGMA]

/**
 * The SQL function `unicode_lower` every connection to the read models defines: SQLite's lower() folds ASCII only, and
 * substring search must be case-insensitive for every script. Plain JavaScript without closures, as the replay writer
 * thread defines it from this function's source.
 */
export const unicodeLower = (v: unknown) => (typeof v === 'string' ? v.toLocaleLowerCase('und') : v)
