import { createHmac } from 'node:crypto'

export const SECRET_PREFIX = 'whsec_'

/**
 * The Standard Webhooks signature of one delivery: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under each
 * valid secret (the key is the base64 part of `whsec_<base64>`), space-separated while a rotated secret still signs.
 */
export const signatureHeader = (secrets: readonly string[], id: string, timestampSeconds: number, body: string): string =>
  secrets.map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`
  }).join(' ')
