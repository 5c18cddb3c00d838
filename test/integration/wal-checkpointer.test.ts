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
  const stop = checkpointOffThread(db, () => {})
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

t.test('a checkpointer that stops is told, and its connection checkpoints itself again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-wal-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'x.db')
  const db = openDatabase(file)
  const logged: string[] = []
  const stop = checkpointOffThread(db, (message) => { logged.push(message) })
  // The worker opens the file by its name (it must exist) once its thread is up: gone by then, the worker fails.
  rmSync(file)
  await until(() => logged.length > 0, 'the stop told', 10_000)
  t.match(logged, [/^the checkpointer of .*x\.db stopped; its connection checkpoints itself again$/])
  t.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000, 'the connection checkpoints on commit again')
  await stop()
  db.close()
})
