import { existsSync } from 'node:fs'
import { createConnection } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { startService } from '../helpers/service.js'

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const socket = createConnection({ host: '127.0.0.1', port })
  socket.once('connect', () => { socket.destroy(); resolve(true) })
  socket.once('error', () => resolve(false))
})

t.test('closing a process releases everything its runtime opened', async (t) => {
  const svc = await startService()
  const gatewayPort = Number(new URL(svc.running.gateway!.url).port)
  await svc.createOrg()
  t.ok(await accepts(svc.port), 'the API listens')
  t.ok(await accepts(gatewayPort), 'the egress gateway listens')
  t.ok(existsSync(join(svc.dataDir, 'events.db-wal')) && existsSync(join(svc.dataDir, 'readmodels.db-wal')), 'both SQLite files are open')

  await svc.close()

  t.notOk(await accepts(svc.port), 'the API no longer listens')
  t.notOk(await accepts(gatewayPort), 'the egress gateway no longer listens')
  // SQLite removes a WAL file when the last connection to its database closes.
  t.notOk(existsSync(join(svc.dataDir, 'events.db-wal')), 'the event store is closed')
  t.notOk(existsSync(join(svc.dataDir, 'readmodels.db-wal')), 'the read-model store is closed')
})
