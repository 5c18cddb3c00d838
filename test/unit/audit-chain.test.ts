import t from 'tap'
import { chainRecord, GENESIS_HASH, verifyChain } from '../../domain/audit-chain.js'

const entries = [1, 2, 3, 4].map((n) => ({ event_id: `e${n}`, position: n, type: 'JobPurged', actor: 'purger', detail: { job_id: `j${n}`, nested: { b: 1, a: 2 } } }))
const exported = () => {
  let prev = GENESIS_HASH
  return entries.map((entry) => {
    const record = chainRecord(entry, prev)
    prev = record.hash
    return JSON.stringify(record)
  })
}

t.test('an untouched export verifies', async (t) => {
  t.match(verifyChain(exported()), { ok: true, records: 4 })
  t.match(verifyChain([...exported(), '']), { ok: true, records: 4 }, 'a trailing newline is no record')
})

t.test('the first broken record is named', async (t) => {
  const changed = exported()
  changed[2] = changed[2]!.replace('"j3"', '"j9"')
  t.match(verifyChain(changed), { ok: false, line: 3, event_id: 'e3', reason: /changed/ })
  const removed = exported().filter((_, i) => i !== 1)
  t.match(verifyChain(removed), { ok: false, line: 2, event_id: 'e3', reason: /prev_hash/ })
  const [a, b, ...rest] = exported()
  t.match(verifyChain([b!, a!, ...rest]), { ok: false, line: 1, event_id: 'e2' }, 'reordered')
  t.match(verifyChain(['{not json', ...exported()]), { ok: false, line: 1, reason: /JSON/ })
})

t.test('key order does not change a hash', async (t) => {
  const [first] = exported()
  const record = JSON.parse(first!) as Record<string, unknown>
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(record).reverse()))
  t.match(verifyChain([reordered]), { ok: true, records: 1 })
})
