#!/usr/bin/env node
// The operator CLI as a command (`npx scrapeworks org list`): the same as `npm run cli -- …`, in the current folder.
import { register } from 'tsx/esm/api'

register()
await import('../infra/cli.ts')
