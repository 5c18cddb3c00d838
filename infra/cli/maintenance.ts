import { Effect } from 'effect'
import { currentTime } from '../../commands/clock.js'
import { consoleLogger } from '../logger.js'
import type { Config } from '../config.js'
import { ReadModels } from '../read-models.js'
import { replayProjections } from '../replay.js'
import { purgeSweep } from '../roles/purger.js'
import { UsageError } from './args.js'
import type { CliCommand } from './operator.js'
import { record } from './output.js'

/** Commands on the data as a whole; they need the configuration itself (purge reads retention settings). */
export const maintenanceCommands = (config: () => Config): readonly CliCommand[] => [
  {
    words: ['replay'],
    usage: 'replay',
    flags: [],
    prepare: () => async ({ run }) => record({ replayed: await run(Effect.flatMap(ReadModels, replayProjections)) }),
  },
  {
    words: ['purge'],
    usage: 'purge [--as-of ISO-TIME] [--dry-run]',
    flags: ['as-of'],
    prepare: (args) => {
      const asOf = args.flags.get('as-of')
      const given = asOf === undefined ? undefined : new Date(asOf)
      if (given !== undefined && Number.isNaN(given.getTime())) throw new UsageError('--as-of takes an ISO 8601 instant, e.g. 2030-01-01T00:00:00Z')
      const dryRun = args.switches.has('dry-run')
      return async ({ run }) => {
        const now = given ?? await run(currentTime)
        const counts = await run(purgeSweep(config(), consoleLogger(config().logLevel), { now, dryRun }))
        return record({ as_of: now.toISOString(), dry_run: dryRun, ...counts })
      }
    },
  },
]
