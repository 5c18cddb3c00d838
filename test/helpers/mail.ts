import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { waitFor } from './service.js'

export interface OutboxMessage {
  readonly file: string
  readonly headers: Readonly<Record<string, string>>
  /** The decoded text body. */
  readonly text: string
}

const decodeQuotedPrintable = (body: string) =>
  Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')

/** Parses one RFC 5322 message: header names lower-cased, folded header lines joined (a long `To:` is folded). */
export const parseMessage = (raw: string): Omit<OutboxMessage, 'file'> => {
  const split = raw.indexOf('\n\n')
  const lines = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)
  const headers = Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(':')
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]
  }))
  const body = raw.slice(split + 2)
  const encoding = headers['content-transfer-encoding']
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body
  return { headers, text }
}

/** Reads the `.eml` files the embedded profile writes into DATA_DIR/outbox/. */
export const outboxMessages = (dataDir: string): OutboxMessage[] => {
  const dir = join(dataDir, 'outbox')
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((f) => f.endsWith('.eml')).map((file) => ({ file, ...parseMessage(readFileSync(join(dir, file), 'utf8')) }))
}

/** Waits for the verification e-mail sent to `to` and answers the link in it. */
export const verificationLink = async (dataDir: string, to: string): Promise<URL> => {
  let link: URL | undefined
  await waitFor(() => {
    const message = outboxMessages(dataDir).find((m) => m.headers.to === to)
    const match = message?.text.match(/https?:\/\/\S+\/verify\?token=\S+/)
    if (match) link = new URL(match[0])
    return link !== undefined
  })
  return link!
}
