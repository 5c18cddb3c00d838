#!/usr/bin/env node
// Readiness probe for the local test servers started by scripts/services/start.sh.
// It has no dependencies (it must work before `npm install`): it speaks just
// enough of each wire protocol to get a real answer from the server.
//
//   node probe.mjs kafka   127.0.0.1:19092 [timeoutSeconds]   -> Metadata request (v4)
//   node probe.mjs mongo   127.0.0.1:27018 [timeoutSeconds]   -> {ping: 1} over OP_MSG
//   node probe.mjs azurite 127.0.0.1:10000 [timeoutSeconds]   -> HTTP GET, Azurite answers
//   node probe.mjs postgres 127.0.0.1:15432 [timeoutSeconds]  -> startup message, authentication ok
//
// Polls until the server answers or the timeout runs out; with a PID as 4th
// argument it also gives up as soon as that process has exited. Exit code 0
// when it answered, 1 on timeout, 3 when the process exited, 2 on bad usage.
import net from 'node:net';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [kind, address, timeoutArg, pidArg] = process.argv.slice(2);
const timeoutMs = Number(timeoutArg ?? 60) * 1000;
const ATTEMPT_MS = 3000;

if (!kind || !address || !/^[^:]+:\d+$/.test(address) || !Number.isFinite(timeoutMs)) {
  console.error('usage: probe.mjs kafka|mongo|azurite|postgres HOST:PORT [timeoutSeconds [PID]]');
  process.exit(2);
}
const [host, portText] = address.split(':');
const port = Number(portText);

/** Sends one framed request and resolves with the first whole framed reply (length-prefixed). */
function roundTrip(request, frameLength) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('no reply in time')); }, ATTEMPT_MS);
    const done = (err, value) => { clearTimeout(timer); socket.destroy(); err ? reject(err) : resolve(value); };
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= 4) {
        const total = frameLength(buf);
        if (buf.length >= total) done(null, buf.subarray(0, total));
      }
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error('connection closed before a full reply')));
  });
}

// ---- Kafka: MetadataRequest v4 (all topics), request header v1, response header v0.
async function probeKafka() {
  const clientId = Buffer.from('services-probe');
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length + 4 + 1);
  let o = 0;
  o = body.writeInt16BE(3, o); // api_key Metadata
  o = body.writeInt16BE(4, o); // api_version
  o = body.writeInt32BE(42, o); // correlation_id
  o = body.writeInt16BE(clientId.length, o);
  o += clientId.copy(body, o);
  o = body.writeInt32BE(-1, o); // topics: null = all topics
  body.writeInt8(0, o); // allow_auto_topic_creation = false
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  const reply = await roundTrip(Buffer.concat([size, body]), (b) => 4 + b.readInt32BE(0));
  let p = 4;
  const correlationId = reply.readInt32BE(p); p += 4;
  if (correlationId !== 42) throw new Error(`unexpected correlation id ${correlationId}`);
  p += 4; // throttle_time_ms
  const brokers = reply.readInt32BE(p); p += 4;
  for (let i = 0; i < brokers; i++) {
    p += 4; // node_id
    p += 2 + reply.readInt16BE(p); // host
    p += 4; // port
    const rack = reply.readInt16BE(p); p += 2 + Math.max(rack, 0);
  }
  const clusterIdLen = reply.readInt16BE(p); p += 2 + Math.max(clusterIdLen, 0);
  const controllerId = reply.readInt32BE(p);
  if (brokers < 1) throw new Error('metadata lists no live broker yet');
  if (controllerId < 0) throw new Error('metadata has no controller yet');
  return `${brokers} broker(s), controller ${controllerId}`;
}

// ---- MongoDB: OP_MSG {ping: 1, $db: "admin"}; answer must carry ok: 1.
function bsonDoc(elements) {
  const parts = [];
  for (const [name, value] of elements) {
    const key = Buffer.from(`${name}\0`);
    if (typeof value === 'number') {
      const v = Buffer.alloc(4); v.writeInt32LE(value);
      parts.push(Buffer.from([0x10]), key, v);
    } else {
      const s = Buffer.from(`${value}\0`);
      const len = Buffer.alloc(4); len.writeInt32LE(s.length);
      parts.push(Buffer.from([0x02]), key, len, s);
    }
  }
  const inner = Buffer.concat([...parts, Buffer.from([0])]);
  const len = Buffer.alloc(4); len.writeInt32LE(inner.length + 4);
  return Buffer.concat([len, inner]);
}

/** Reads the numeric value of top-level field `field` in a BSON document, or undefined. */
function bsonNumber(doc, field) {
  const end = doc.readInt32LE(0);
  let p = 4;
  while (p < end - 1) {
    const type = doc[p++];
    const nameEnd = doc.indexOf(0, p);
    const name = doc.toString('utf8', p, nameEnd);
    p = nameEnd + 1;
    let value; let size;
    switch (type) {
      case 0x01: value = doc.readDoubleLE(p); size = 8; break;
      case 0x10: value = doc.readInt32LE(p); size = 4; break;
      case 0x12: value = Number(doc.readBigInt64LE(p)); size = 8; break;
      case 0x02: case 0x0d: case 0x0e: size = 4 + doc.readInt32LE(p); break;
      case 0x03: case 0x04: size = doc.readInt32LE(p); break;
      case 0x05: size = 5 + doc.readInt32LE(p); break;
      case 0x07: size = 12; break;
      case 0x08: size = 1; break;
      case 0x09: case 0x11: size = 8; break;
      case 0x0a: case 0x7f: case 0xff: size = 0; break;
      case 0x13: size = 16; break;
      default: return undefined; // a type a ping reply does not use
    }
    if (name === field) return value;
    p += size;
  }
  return undefined;
}

async function probeMongo() {
  const doc = bsonDoc([['ping', 1], ['$db', 'admin']]);
  const header = Buffer.alloc(16 + 4 + 1);
  header.writeInt32LE(header.length + doc.length, 0); // messageLength
  header.writeInt32LE(7, 4); // requestID
  header.writeInt32LE(0, 8); // responseTo
  header.writeInt32LE(2013, 12); // OP_MSG
  header.writeUInt32LE(0, 16); // flagBits
  header.writeUInt8(0, 20); // section kind 0: body
  const reply = await roundTrip(Buffer.concat([header, doc]), (b) => b.readInt32LE(0));
  const opCode = reply.readInt32LE(12);
  if (opCode !== 2013) throw new Error(`unexpected reply opCode ${opCode}`);
  if (reply[20] !== 0) throw new Error('unexpected OP_MSG section kind');
  const ok = bsonNumber(reply.subarray(21), 'ok');
  if (ok !== 1) throw new Error(`ping answered ok=${ok}`);
  return 'ping ok';
}

// ---- Azurite: any HTTP answer that comes from Azurite (it sets x-ms-request-id).
function probeAzurite() {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path: '/devstoreaccount1?comp=list', timeout: ATTEMPT_MS }, (res) => {
      res.resume();
      if (res.headers['x-ms-request-id'] || String(res.headers.server ?? '').startsWith('Azurite')) {
        resolve(`HTTP ${res.statusCode} from ${res.headers.server ?? 'Azurite'}`);
      } else {
        reject(new Error(`HTTP ${res.statusCode} without Azurite headers: something else owns port ${port}`));
      }
    });
    req.on('timeout', () => req.destroy(new Error('no reply in time')));
    req.on('error', reject);
  });
}

// ---- PostgreSQL: a protocol 3.0 startup message as the trusted test user; AuthenticationOk ('R', 0) is an answer,
// an error ('E', e.g. "the database system is starting up") is not yet.
function probePostgres() {
  const params = Buffer.from('user\0scrapeworks\0database\0postgres\0\0');
  const startup = Buffer.alloc(8);
  startup.writeInt32BE(8 + params.length, 0);
  startup.writeInt32BE(196608, 4);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('no reply in time')); }, ATTEMPT_MS);
    const done = (err, value) => { clearTimeout(timer); socket.destroy(); err ? reject(err) : resolve(value); };
    let buf = Buffer.alloc(0);
    socket.on('connect', () => socket.write(Buffer.concat([startup, params])));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 9) return;
      if (buf[0] === 0x52 && buf.readInt32BE(5) === 0) done(null, 'authentication ok');
      else done(new Error(buf[0] === 0x45 ? buf.toString('utf8', 5).replace(/\0/g, ' ').trim() : `unexpected reply ${buf[0]}`));
    });
    socket.on('error', (err) => done(err));
    socket.on('close', () => done(new Error('connection closed before a reply')));
  });
}

const probes = { kafka: probeKafka, mongo: probeMongo, azurite: probeAzurite, postgres: probePostgres };
const probe = probes[kind];
if (!probe) {
  console.error(`probe.mjs: unknown server kind "${kind}" (kafka, mongo, azurite or postgres)`);
  process.exit(2);
}

/** False once the process is gone or a zombie (exited, not yet reaped). */
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const deadline = Date.now() + timeoutMs;
let lastError;
for (;;) {
  try {
    const what = await probe();
    if (process.env.SERVICES_VERBOSE === '1') console.error(`${kind} at ${address}: ${what}`);
    process.exit(0);
  } catch (err) {
    lastError = err;
  }
  if (pidArg && !alive(pidArg)) {
    console.error(`${kind} at ${address}: process ${pidArg} exited before it answered`);
    process.exit(3);
  }
  if (Date.now() + 500 > deadline) break;
  await new Promise((r) => setTimeout(r, 500));
}
console.error(`${kind} at ${address} did not answer within ${timeoutMs / 1000}s: ${lastError?.message ?? lastError}`);
process.exit(1);
