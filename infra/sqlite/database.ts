import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * The settings of every connection to a store's file, this process's and its helper threads' (which are plain
 * JavaScript and get them as data): commits wait for the log only, and a busy file is waited on for 10 s.
 */
export const CONNECTION_PRAGMAS: readonly string[] = ['synchronous = NORMAL', 'busy_timeout = 10000']

/** Opens a SQLite file in WAL mode, tuned for one writer process with readers in other processes. */
export const openDatabase = (file: string): Database.Database => {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  for (const pragma of CONNECTION_PRAGMAS) db.pragma(pragma)
  db.pragma('foreign_keys = ON')
  return db
}

/**
 * Statements prepared once per SQL text, for queries built from a filter's shape (its values are parameters): at most
 * `max` kept, all forgotten past that (then prepared again as used).
 */
export const preparedStatements = (db: Database.Database, max: number) => {
  const prepared = new Map<string, Database.Statement>()
  return (sql: string): Database.Statement => {
    let found = prepared.get(sql)
    if (!found) {
      if (prepared.size >= max) prepared.clear()
      prepared.set(sql, (found = db.prepare(sql)))
    }
    return found
  }
}
