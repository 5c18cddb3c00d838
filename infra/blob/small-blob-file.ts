import type Database from 'better-sqlite3'
import { openDatabase } from '../sqlite/database.js'
import { checkpointOffThread, type CheckpointLog } from '../sqlite/wal-checkpointer.js'

/**
 * Blobs up to this size go into the folder's SQLite file instead of a file of their own. Writing one costs the main
 * thread a few page writes in the calling turn, far less than creating a file costs the kernel (hundreds of
 * microseconds of CPU per file measured, plus the thread pool's round trip); past this size the copy and the page
 * writes would block the event loop longer than the file's creation costs.
 */
export const SMALL_BLOB_MAX_BYTES = 64 * 1024

/**
 * The small blobs of a local blob folder, one row each in one SQLite file (WAL, checkpointed off the thread like the
 * stores'), opened on first use so a store that never reads nor writes leaves no file. Several processes may share
 * it (the service, a CLI purge), as they share the folder.
 */
export const smallBlobFile = (path: string, log: CheckpointLog) => {
  let opened: { readonly db: Database.Database; readonly stopCheckpoints: () => Promise<void>; readonly put: Database.Statement; readonly get: Database.Statement<[string], { content_type: string; bytes: Buffer }>; readonly remove: Database.Statement } | null = null
  const open = () => {
    if (opened) return opened
    const db = openDatabase(path)
    db.exec('create table if not exists blobs (key text primary key, content_type text not null, bytes blob not null)')
    opened = {
      db, stopCheckpoints: checkpointOffThread(db, log),
      put: db.prepare('insert into blobs (key, content_type, bytes) values (?, ?, ?) on conflict(key) do update set content_type = excluded.content_type, bytes = excluded.bytes'),
      get: db.prepare('select content_type, bytes from blobs where key = ?'),
      remove: db.prepare('delete from blobs where key = ?'),
    }
    return opened
  }
  return {
    put: (key: string, bytes: Uint8Array, contentType: string) => { open().put.run(key, contentType, bytes) },
    get: (key: string): { readonly bytes: Uint8Array; readonly contentType: string } | null => {
      const row = open().get.get(key)
      return row ? { bytes: new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength), contentType: row.content_type } : null
    },
    delete: (key: string) => { open().remove.run(key) },
    /** Its last checkpoint, then the file closed; a later use opens it again. */
    close: async () => {
      if (!opened) return
      const { db, stopCheckpoints } = opened
      opened = null
      await stopCheckpoints()
      db.close()
    },
  }
}
