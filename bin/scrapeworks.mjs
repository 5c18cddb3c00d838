#!/usr/bin/env node
// `scrapeworks`: the user's commands (scrape, jobs, monitors, recipes list|run) are a client of the public API
// (client/cli.ts); the operator's commands (org, key, user, replay, purge, audit, recipes lint) work on the service's
// own data (infra/cli.ts, also `npm run cli -- …`). The two sets of words do not overlap.
import { register } from 'tsx/esm/api'

const USER_COMMANDS = new Set(['scrape', 'jobs', 'monitors', 'recipes', 'help', '--help', '-h', undefined])
const [first, second] = process.argv.slice(2)
const operator = !USER_COMMANDS.has(first) || (first === 'recipes' && second === 'lint')
register()
await import(operator ? '../infra/cli.ts' : '../client/cli.ts')
