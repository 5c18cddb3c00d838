import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openDatabase } from '../../infra/sqlite/database.js'
import { checkpointOffThread } from '../../infra/sqlite/wal-checkpointer.js'
import { until } from '../contract/event-log.contract.js'

t.test("a worker thread copies the log's commits into the database file; the connection itself does not", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-wal-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'x.db')
  const db = openDatabase(file)
  db.exec('create table rows (id integer primary key, body text not null)')
  const stop = checkpointOffThread(db)
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the connection no longer checkpoints on commit')
  const insert = db.prepare('insert into rows (body) values (?)')
  for (let i = 0; i < 2000; i++) insert.run('x'.repeat(1000)) // one commit each, about 2 MB in all
  await until(() => statSync(file).size > 2_000_000, 'the rows checkpointed into the database file', 10_000)
  insert.run('the last row')
  await stop()
  t.equal(db.pragma('wal_checkpoint(PASSIVE)', { simple: true }), 0, 'the connection still works after the worker stopped')
  const row = db.prepare('select body from rows order by id desc limit 1').get() as { body: string }
  t.equal(row.body, 'the last row')
  db.close()
})
