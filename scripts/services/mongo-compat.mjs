#!/usr/bin/env node
// Which MongoDB operations the local MongoDB-protocol server (FerretDB, see
// README.md here) supports: runs each against a scratch database and prints
// OK or FAIL with the server's error. For adapter authors; not a test (it
// always exits 0 once connected). Needs the `mongodb` package (npm install).
//
//   node scripts/services/mongo-compat.mjs [MONGO_URL]
// MONGO_URL defaults to $MONGO_URL, then to the one in .services/env.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';

function urlFromEnvFile() {
  try {
    const text = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../.services/env'), 'utf8');
    return /^MONGO_URL=(.*)$/m.exec(text)?.[1]?.trim();
  } catch {
    return undefined;
  }
}
const url = process.argv[2] ?? process.env.MONGO_URL ?? urlFromEnvFile();
if (!url) {
  console.error('mongo-compat: no MONGO_URL (argument, environment or .services/env); run scripts/services/start.sh');
  process.exit(2);
}
const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
await client.connect();
const db = client.db(`compat_${Date.now()}`);
const c = db.collection('pages');
const results = [];
async function op(name, fn) {
  try { const r = await fn(); results.push([name, 'OK', JSON.stringify(r)?.slice(0, 160)]); }
  catch (e) { results.push([name, 'FAIL', `${e.codeName ?? e.code ?? ''} ${e.message}`.slice(0, 200)]); }
}
await op('ping', () => db.command({ ping: 1 }));
await op('buildInfo', async () => { const b = await db.admin().command({ buildInfo: 1 }); return { version: b.version, ferretdb: b.ferretdbVersion }; });
await op('hello', async () => { const h = await db.command({ hello: 1 }); return { maxWireVersion: h.maxWireVersion, setName: h.setName, logicalSessionTimeoutMinutes: h.logicalSessionTimeoutMinutes }; });
await op('insertMany', async () => (await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `p${i}`, url: `https://ex.com/${i}`, n: i, tags: i % 2 ? ['odd'] : ['even'], at: new Date(1700000000000 + i * 1000), nested: { depth: i % 3 } })))).insertedCount);
await op('insertOne', async () => (await c.insertOne({ url: 'https://other.org/x', n: 100 })).acknowledged);
await op('find $in', async () => (await c.find({ _id: { $in: ['p1', 'p3', 'nope'] } }).toArray()).map(d => d._id));
await op('find $gt', async () => (await c.countDocuments({ n: { $gt: 15 } })));
await op('find $gte/$lt date', async () => (await c.countDocuments({ at: { $gte: new Date(1700000005000), $lt: new Date(1700000010000) } })));
await op('find regex', async () => (await c.find({ url: /other\.org/ }).toArray()).length);
await op('find $regex string + $options', async () => (await c.find({ url: { $regex: '^HTTPS://EX', $options: 'i' } }).toArray()).length);
await op('find array element', async () => (await c.countDocuments({ tags: 'odd' })));
await op('find dotted path', async () => (await c.countDocuments({ 'nested.depth': 2 })));
await op('find $or/$and/$ne/$exists', async () => (await c.countDocuments({ $or: [{ n: 1 }, { n: { $gte: 18 } }], url: { $exists: true }, n2: { $ne: 5 } })));
await op('sort/skip/limit', async () => (await c.find({ n: { $lt: 100 } }).sort({ n: -1 }).skip(2).limit(3).toArray()).map(d => d.n));
await op('sort compound', async () => (await c.find({}).sort({ 'nested.depth': 1, n: -1 }).limit(3).toArray()).map(d => d.n));
await op('projection', async () => Object.keys((await c.findOne({ _id: 'p1' }, { projection: { url: 1, _id: 0 } })) ?? {}));
await op('countDocuments', () => c.countDocuments({}));
await op('estimatedDocumentCount', () => c.estimatedDocumentCount());
await op('createIndex single', () => c.createIndex({ url: 1 }));
await op('createIndex unique', () => c.createIndex({ n: 1 }, { unique: true, name: 'n_unique' }));
await op('unique violation rejected', async () => { try { await c.insertOne({ n: 1 }); return 'NOT REJECTED'; } catch (e) { if (e.code === 11000) return 'E11000'; throw e; } });
await op('createIndex compound', () => c.createIndex({ 'nested.depth': 1, at: -1 }));
await op('createIndex TTL', () => c.createIndex({ at: 1 }, { expireAfterSeconds: 3600 }));
await op('createIndex partial', () => c.createIndex({ tags: 1 }, { partialFilterExpression: { n: { $gt: 5 } } }));
await op('createIndex sparse', () => c.createIndex({ sp: 1 }, { sparse: true }));
await op('createIndex text', () => c.createIndex({ url: 'text' }));
await op('listIndexes', async () => (await c.listIndexes().toArray()).map(i => i.name));
await op('updateOne $set', async () => { const r = await c.updateOne({ _id: 'p2' }, { $set: { title: 'two' } }); return [r.matchedCount, r.modifiedCount]; });
await op('updateOne upsert (insert)', async () => { const r = await c.updateOne({ _id: 'new1' }, { $set: { url: 'u', n: 500 }, $setOnInsert: { created: true } }, { upsert: true }); return [r.matchedCount, r.upsertedCount, r.upsertedId]; });
await op('updateOne upsert (update)', async () => { const r = await c.updateOne({ _id: 'new1' }, { $set: { n: 501 }, $setOnInsert: { created: false } }, { upsert: true }); const d = await c.findOne({ _id: 'new1' }); return [r.matchedCount, r.modifiedCount, d.n, d.created]; });
await op('updateOne upsert non-_id filter', async () => { const r = await c.updateOne({ url: 'upsert-by-url' }, { $set: { n: 600 } }, { upsert: true }); return [r.upsertedCount, typeof r.upsertedId]; });
await op('updateOne $inc/$push/$addToSet/$unset', async () => { await c.updateOne({ _id: 'p4' }, { $inc: { n2: 1 }, $push: { tags: 'x' }, $unset: { nested: '' } }); await c.updateOne({ _id: 'p4' }, { $addToSet: { tags: 'x' } }); const d = await c.findOne({ _id: 'p4' }); return d; });
await op('updateMany', async () => (await c.updateMany({ tags: 'odd' }, { $set: { odd: true } })).modifiedCount);
await op('replaceOne', async () => (await c.replaceOne({ _id: 'p5' }, { url: 'replaced', n: 5 })).modifiedCount);
await op('findOneAndUpdate returnDocument after', async () => (await c.findOneAndUpdate({ _id: 'p6' }, { $set: { lease: 'w1' } }, { returnDocument: 'after' }))?.lease);
await op('findOneAndUpdate upsert+sort', async () => (await c.findOneAndUpdate({ lease: { $exists: false }, n: { $lt: 10 } }, { $set: { lease: 'w2' } }, { sort: { n: 1 }, returnDocument: 'after' }))?._id);
await op('findOneAndDelete', async () => (await c.findOneAndDelete({ _id: 'p7' }))?._id);
await op('deleteOne', async () => (await c.deleteOne({ _id: 'p0' })).deletedCount);
await op('deleteMany', async () => (await c.deleteMany({ n: { $gte: 500 } })).deletedCount);
await op('bulkWrite', async () => { const r = await c.bulkWrite([{ insertOne: { document: { _id: 'b1', n: 700 } } }, { updateOne: { filter: { _id: 'b1' }, update: { $set: { b: 1 } } } }, { deleteOne: { filter: { _id: 'p8' } } }]); return [r.insertedCount, r.modifiedCount, r.deletedCount]; });
await op('distinct', () => c.distinct('nested.depth'));
await op('aggregate $match/$group/$sort', () => c.aggregate([{ $match: { n: { $lt: 100 } } }, { $group: { _id: '$nested.depth', c: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray());
await op('aggregate $lookup', () => c.aggregate([{ $limit: 1 }, { $lookup: { from: 'other', localField: '_id', foreignField: 'pid', as: 'x' } }]).toArray());
await op('aggregate $facet', () => c.aggregate([{ $facet: { a: [{ $count: 'n' }] } }]).toArray());
await op('find with hint', async () => (await c.find({ url: 'u' }).hint({ url: 1 }).toArray()).length);
await op('dropIndex', () => c.dropIndex('n_unique'));
await op('collection rename', async () => { await db.collection('tmp').insertOne({ a: 1 }); await db.collection('tmp').rename('tmp2'); return true; });
await op('capped collection', async () => { await db.createCollection('capped', { capped: true, size: 100000 }); return true; });
await op('transaction', async () => { const s = client.startSession(); try { await s.withTransaction(async () => { await c.insertOne({ _id: 'tx1' }, { session: s }); }); return true; } finally { await s.endSession(); } });
await op('change stream', async () => { const cs = c.watch(); const p = cs.tryNext(); const r = await Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 3000))]); await cs.close(); return r; });
await op('large doc 1MB', async () => { await c.insertOne({ _id: 'big', body: 'x'.repeat(1024 * 1024) }); return (await c.findOne({ _id: 'big' })).body.length; });
await op('cursor batching 1000 docs', async () => { const c2 = db.collection('many'); await c2.insertMany(Array.from({ length: 1000 }, (_, i) => ({ i }))); return (await c2.find({}).batchSize(100).toArray()).length; });

await op('find $nin/$all/$size/$elemMatch', async () => [await c.countDocuments({ _id: { $nin: ['p1', 'p2'] } }), await c.countDocuments({ tags: { $all: ['even', 'x'] } }), await c.countDocuments({ tags: { $size: 2 } }), await c.countDocuments({ tags: { $elemMatch: { $eq: 'x' } } })]);
await op('find $not/$type/$mod', async () => [await c.countDocuments({ n: { $not: { $gt: 5 } } }), await c.countDocuments({ at: { $type: 'date' } }), await c.countDocuments({ n: { $mod: [5, 0] } })]);
await op('find $expr', async () => await c.countDocuments({ $expr: { $gt: ['$n', 10] } }));
await op('update $pull/$min/$max/$rename/$currentDate', async () => { await c.updateOne({ _id: 'p4' }, { $pull: { tags: 'x' }, $min: { n: 1 }, $max: { hi: 9 }, $rename: { url: 'link' }, $currentDate: { seen: true } }); return await c.findOne({ _id: 'p4' }); });
await op('update positional $', async () => { await c.updateOne({ _id: 'p4', tags: 'even' }, { $set: { 'tags.$': 'EVEN' } }); return (await c.findOne({ _id: 'p4' })).tags; });
await op('update arrayFilters', async () => { await c.updateOne({ _id: 'p4' }, { $set: { 'tags.$[t]': 'e' } }, { arrayFilters: [{ t: 'EVEN' }] }); return (await c.findOne({ _id: 'p4' })).tags; });
await op('update pipeline', async () => (await c.updateOne({ _id: 'p9' }, [{ $set: { m: { $add: ['$n', 1] } } }])).modifiedCount);
await op('aggregate $project/$unwind/$count/$addFields', () => c.aggregate([{ $unwind: '$tags' }, { $addFields: { k: 1 } }, { $project: { tags: 1, k: 1 } }, { $count: 'total' }]).toArray());
await op('aggregate $sort/$skip/$limit', async () => (await c.aggregate([{ $sort: { n: 1 } }, { $skip: 1 }, { $limit: 2 }]).toArray()).map(d => d._id));
await op('countDocuments skip/limit', () => c.countDocuments({}, { skip: 2, limit: 5 }));
await op('listCollections', async () => (await db.listCollections().toArray()).map(x => x.name).sort());
await op('collection drop', async () => db.collection('tmp2').drop());
await op('explain', async () => !!(await c.find({ n: 1 }).explain()));
await op('collation', async () => (await c.find({}).collation({ locale: 'en', strength: 2 }).limit(1).toArray()).length);
// Single-document atomicity under concurrency (real MongoDB guarantees it; these fail when updates are lost).
await op('atomic: 50 concurrent $inc on one doc', async () => { await c.insertOne({ _id: 'ctr', k: 0 }); await Promise.all(Array.from({ length: 50 }, () => c.updateOne({ _id: 'ctr' }, { $inc: { k: 1 } }))); const k = (await c.findOne({ _id: 'ctr' })).k; if (k !== 50) throw new Error(`lost updates: k=${k}, expected 50`); return k; });
await op('atomic: 50 concurrent upserts with $inc on one _id', async () => { await Promise.all(Array.from({ length: 50 }, () => c.updateOne({ _id: 'race' }, { $inc: { k: 1 } }, { upsert: true }))); const k = (await c.findOne({ _id: 'race' })).k; if (k !== 50) throw new Error(`lost updates: k=${k}, expected 50`); return k; });
await op('atomic: 40 concurrent findOneAndUpdate claims of 20 jobs', async () => { const jobs = db.collection('jobs'); await jobs.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `job${i}`, lease: null }))); const got = (await Promise.all(Array.from({ length: 40 }, (_, i) => jobs.findOneAndUpdate({ lease: null }, { $set: { lease: `w${i}` } }, { returnDocument: 'after' })))).filter(Boolean).map((d) => d._id); const distinct = new Set(got).size; if (got.length !== 20 || distinct !== 20) throw new Error(`double claims: ${got.length} claims for ${distinct} distinct jobs, expected 20 and 20`); return distinct; });
await op('dropDatabase', () => db.dropDatabase());
for (const [n, s, d] of results) console.log(`${s.padEnd(4)} ${n}: ${d}`);
await client.close();
