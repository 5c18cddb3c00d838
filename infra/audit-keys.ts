import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { VerificationKeys } from '../domain/audit-chain.js'
import type { AuditChainKeys } from './sqlite/audit-chain.js'

/**
 * The audit chain's keys file (AUDIT_KEYS_FILE, docs/audit.md): the HMAC keys of the chain and the Ed25519 keys of its
 * checkpoints, each set with the id new records use. Rotating adds a key and makes it current; older keys stay, so
 * records made with them still verify.
 */
interface KeysFile {
  readonly hmac: { readonly current: string; readonly keys: Readonly<Record<string, string>> }
  /** PKCS#8 PEM private keys. */
  readonly signing: { readonly current: string; readonly keys: Readonly<Record<string, string>> }
}

export interface AuditKeys {
  /** What new links and checkpoints are made with. */
  readonly current: AuditChainKeys
  /** Every key, for verification. */
  readonly verification: VerificationKeys
}

const keyId = (kind: 'hmac' | 'ed25519') => `${kind}-${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`
const newHmacKey = () => randomBytes(32).toString('base64')
const newSigningKey = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

const write = (file: string, keys: KeysFile) => {
  mkdirSync(dirname(file), { recursive: true })
  // Written whole then renamed: a reader never sees half a file, and a crash never loses the older keys.
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
}

const read = (file: string): KeysFile => {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as KeysFile
  for (const set of ['hmac', 'signing'] as const) {
    if (typeof parsed[set]?.current !== 'string' || typeof parsed[set].keys?.[parsed[set].current] !== 'string') {
      throw new Error(`${file}: "${set}.current" must name one of "${set}.keys"`)
    }
  }
  return parsed
}

const loaded = (file: KeysFile): AuditKeys => {
  const hmac = new Map(Object.entries(file.hmac.keys).map(([id, key]) => [id, Buffer.from(key, 'base64')] as const))
  const privateKeys = new Map(Object.entries(file.signing.keys).map(([id, pem]) => [id, createPrivateKey(pem)] as const))
  const signing = new Map([...privateKeys].map(([id, key]) => [id, createPublicKey(key)] as const))
  return {
    current: { hmacKeyId: file.hmac.current, hmacKey: hmac.get(file.hmac.current)!, signingKeyId: file.signing.current, signingKey: privateKeys.get(file.signing.current)! },
    verification: { hmac, signing },
  }
}

/** The keys of `file`, which is made with a fresh key of each kind when it does not exist yet. */
export const loadAuditKeys = (file: string): AuditKeys => {
  if (!existsSync(file)) {
    const hmacId = keyId('hmac')
    const signingId = keyId('ed25519')
    write(file, { hmac: { current: hmacId, keys: { [hmacId]: newHmacKey() } }, signing: { current: signingId, keys: { [signingId]: newSigningKey() } } })
  }
  return loaded(read(file))
}

/** The keys of an existing `file` (verification never makes keys: a missing file is an error). */
export const readAuditKeys = (file: string): AuditKeys => loaded(read(file))

/** Adds a new key of `kind` to `file` and makes it current; answers its id. */
export const rotateAuditKey = (file: string, kind: 'hmac' | 'signing'): string => {
  const keys = read(file)
  const id = keyId(kind === 'hmac' ? 'hmac' : 'ed25519')
  const set = { current: id, keys: { ...keys[kind].keys, [id]: kind === 'hmac' ? newHmacKey() : newSigningKey() } }
  write(file, { ...keys, [kind]: set })
  return id
}

/** The public keys of the checkpoints as PEM by key id, to publish beside them. */
export const publicKeysPem = (keys: AuditKeys): Record<string, string> =>
  Object.fromEntries([...keys.verification.signing].map(([id, key]: [string, KeyObject]) => [id, key.export({ type: 'spki', format: 'pem' }).toString()]))
