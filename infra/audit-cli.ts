import Database from 'better-sqlite3'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { verifyExport, type Checkpoint } from '../domain/audit-chain.js'
import { loadAuditKeys, publicKeysPem, readAuditKeys, rotateAuditKey } from './audit-keys.js'
import type { Config } from './config.js'
import { systemClock } from './clock/system.js'
import { makeSqliteAuditChain } from './sqlite/audit-chain.js'
import { storedCheckpoints, verifyStoredChain } from './sqlite/audit-verify.js'
import { openDatabase } from './sqlite/database.js'

export const AUDIT_USAGE = `  cli audit verify [FILE] [--checkpoints DIR]
  cli audit checkpoint
  cli audit checkpoints --out DIR
  cli audit rotate-key hmac|signing`

const flag = (args: readonly string[], name: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}

/** The embedded event store's file, opened for reading only (verification changes nothing, not even the schema). */
const openStoreReadOnly = (config: Config) => {
  const file = join(config.dataDir, 'events.db')
  if (!existsSync(file)) throw new Error(`no event store at ${file}`)
  return new Database(file, { readonly: true, fileMustExist: true })
}

const hasChainTables = (db: Database.Database) =>
  db.prepare(`select count(*) from sqlite_master where type = 'table' and name in ('audit_chain', 'audit_checkpoints')`).pluck().get() === 2

/** Checkpoints from copies kept elsewhere (DIR, every *.json but the public keys) or else from the event store. */
const checkpointsFor = (config: Config, dir: string | undefined): Checkpoint[] => {
  if (dir !== undefined) {
    return readdirSync(dir).filter((name) => name.startsWith('checkpoint-') && name.endsWith('.json')).sort()
      .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Checkpoint)
  }
  if (!existsSync(join(config.dataDir, 'events.db'))) return []
  const db = openStoreReadOnly(config)
  try {
    return hasChainTables(db) ? storedCheckpoints(db) : []
  } finally {
    db.close()
  }
}

const answer = (verdict: { readonly ok: boolean }) => {
  process.stdout.write(`${JSON.stringify(verdict)}\n`)
  if (!verdict.ok) process.exitCode = 1
}

/** Verifies the embedded event store's events against their stored chain and checkpoints. */
const verifyStore = (config: Config) => {
  const keys = readAuditKeys(config.audit.keysFile).verification
  const db = openStoreReadOnly(config)
  try {
    answer(hasChainTables(db) ? verifyStoredChain(db, keys) : { ok: false, events: 0, event_id: null, position: null, reason: 'the event store keeps no audit chain yet (start the service once)' })
  } finally {
    db.close()
  }
}

/** Writes every stored checkpoint as DIR/checkpoint-<seq>.json, and the public keys that verify them as DIR/public-keys.json. */
const copyCheckpoints = (config: Config, dir: string) => {
  mkdirSync(dir, { recursive: true })
  const checkpoints = checkpointsFor(config, undefined)
  for (const checkpoint of checkpoints) writeFileSync(join(dir, `checkpoint-${String(checkpoint.seq).padStart(8, '0')}.json`), `${JSON.stringify(checkpoint)}\n`)
  writeFileSync(join(dir, 'public-keys.json'), `${JSON.stringify(publicKeysPem(readAuditKeys(config.audit.keysFile)), null, 2)}\n`)
  return { out: dir, checkpoints: checkpoints.length }
}

/** Makes a checkpoint of the chains' heads now (an operator's cron, before copying them out). */
const checkpointNow = (config: Config) => {
  const db = openDatabase(join(config.dataDir, 'events.db'))
  try {
    const { current } = loadAuditKeys(config.audit.keysFile)
    const chain = makeSqliteAuditChain(db, { keys: current, checkpointEvery: config.audit.checkpointEvery, checkpointIntervalSeconds: config.audit.checkpointIntervalSeconds })
    const made = db.transaction(() => chain.checkpointNow(systemClock.now().toISOString())).immediate()
    return made === null ? { checkpoint: null, reason: 'nothing was chained since the last checkpoint' } : { checkpoint: made.seq, position: made.global.position }
  } finally {
    db.close()
  }
}

/** `cli audit ...`; answers false when the arguments name no audit command. */
export const auditCommand = (args: readonly string[], config: Config): boolean => {
  const [command, ...rest] = args
  if (command === 'verify') {
    const file = rest[0] !== undefined && !rest[0].startsWith('--') ? rest[0] : undefined
    if (file === undefined) verifyStore(config)
    else answer(verifyExport(readFileSync(file, 'utf8').split('\n'), readAuditKeys(config.audit.keysFile).verification, checkpointsFor(config, flag(rest, 'checkpoints'))))
  } else if (command === 'checkpoint') {
    process.stdout.write(`${JSON.stringify(checkpointNow(config))}\n`)
  } else if (command === 'checkpoints' && flag(rest, 'out') !== undefined) {
    process.stdout.write(`${JSON.stringify(copyCheckpoints(config, flag(rest, 'out')!))}\n`)
  } else if (command === 'rotate-key' && (rest[0] === 'hmac' || rest[0] === 'signing')) {
    process.stdout.write(`${JSON.stringify({ rotated: rest[0], key_id: rotateAuditKey(config.audit.keysFile, rest[0]) })}\n`)
  } else return false
  return true
}
