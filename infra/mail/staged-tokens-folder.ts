import { mkdirSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Effect } from 'effect'
import { MailUnavailable, type MailOutboxService } from '../../ports/mail.js'

const HASH = /^[0-9a-f]{64}$/

/**
 * Embedded-profile MailOutbox: one file per staged token (`<sha256>.token`, mode 0600) in a private folder.
 * Scale-out needs an adapter on storage shared by the API and the mailer processes (not built yet).
 */
export const makeStagedTokensFolder = (dir: string): MailOutboxService => {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = (hash: string) => {
    if (!HASH.test(hash)) throw new Error('a staged token is keyed by its SHA-256 hex digest')
    return join(dir, `${hash}.token`)
  }
  const attempt = <A>(work: () => Promise<A>) => Effect.tryPromise({ try: work, catch: (cause) => new MailUnavailable({ cause }) })
  return {
    stage: (hash, token) => attempt(async () => {
      const target = file(hash)
      await writeFile(`${target}.tmp`, token, { mode: 0o600 })
      await rename(`${target}.tmp`, target)
    }),
    read: (hash) => attempt(async () => {
      try {
        return await readFile(file(hash), 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw error
      }
    }),
    remove: (hash) => attempt(() => rm(file(hash), { force: true })),
  }
}
