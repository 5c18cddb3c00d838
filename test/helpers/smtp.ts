import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { parseMessage, type OutboxMessage } from './mail.js'

export interface ReceivedMail extends Omit<OutboxMessage, 'file'> {
  /** The envelope's recipients (RCPT TO), as the server received them. */
  readonly recipients: readonly string[]
}

/** A real SMTP server on a loopback port of its own choosing (listen(0)) that keeps what it receives (no TLS, no authentication). */
export const startSmtpServer = async () => {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({ recipients: session.envelope.rcptTo.map((r) => r.address), ...parseMessage(Buffer.concat(chunks).toString('utf8')) })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
