import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const PREFIX = 'sealed:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * Seals short secrets (a customer proxy password) before they are recorded in events, so the event store,
 * its replicas and read models never hold them in clear. AES-256-GCM; the key is derived (HKDF-SHA256) from the
 * service's signing secret with its own label, so it is never the signing key itself.
 */
export class SecretBox {
  readonly #key: Buffer

  constructor(secret: string, label = 'job-spec-secrets') {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'scrapeworks-secret-box', label, 32))
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX)
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
  }

  /** Opens a sealed value. Throws (without echoing the value) when it was sealed with another key or altered. */
  open(sealed: string): string {
    if (!SecretBox.isSealed(sealed)) throw new Error('value is not sealed')
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value is truncated')
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES))
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new Error('sealed value could not be opened (wrong key or altered)')
    }
  }
}
