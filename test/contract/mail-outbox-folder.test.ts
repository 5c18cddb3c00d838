import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { makeStagedTokensFolder } from '../../infra/mail/staged-tokens-folder.js'
import { mailOutboxContract } from './mail-outbox.contract.js'

mailOutboxContract(t, 'staged tokens in a private folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sw-outbox-'))
  return { outbox: makeStagedTokensFolder(join(dir, 'outbox-staged')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
})
