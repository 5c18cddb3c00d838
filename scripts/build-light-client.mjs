// Builds the light tier's HTTP client (fetchers/light/chromium-client, Go) into .build/chromium-client. `npm install`
// runs it with --if-go: without Go it says so in one line and the install goes on (the light tier is then unavailable
// until Go is installed and `npm run build:light-client` is run; the service warns at start).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const goInstalled = (() => { try { execFileSync('go', ['version'], { stdio: 'ignore' }); return true } catch { return false } })()
// The container image copies in a client built in its Go stage: nothing to say there.
if (!goInstalled && existsSync(join(root, '.build', 'chromium-client'))) process.exit(0)
if (!goInstalled) {
  process.stderr.write('light tier: Go is not installed, so its HTTP client is not built; install Go (https://go.dev/dl/) and run `npm run build:light-client`\n')
  process.exit(process.argv.includes('--if-go') ? 0 : 1)
}
mkdirSync(join(root, '.build'), { recursive: true })
execFileSync('go', ['build', '-trimpath', '-o', join(root, '.build', 'chromium-client'), '.'], { cwd: join(root, 'fetchers', 'light', 'chromium-client'), stdio: 'inherit' })
