import { auditProjection } from './audit.js'
import { contentMonitorsProjection } from './content-monitors.js'
import { creditsProjection } from './credits.js'
import { jobsProjection } from './jobs.js'
import { monitorChangesProjection } from './monitor-changes.js'
import { lifecycleProjection } from './lifecycle.js'
import { monitorsProjection } from './monitors.js'
import { orgsProjection } from './orgs.js'
import type { Projection } from './projection.js'
import { recipeHealthProjection } from './recipe-health.js'
import { retentionProjection } from './retention.js'
import { scrapesProjection } from './scrapes.js'
import { usersProjection } from './users.js'
import { webhooksProjection } from './webhooks.js'

export const PROJECTIONS: readonly Projection[] = [
  jobsProjection, orgsProjection, creditsProjection, auditProjection, usersProjection, monitorsProjection, scrapesProjection,
  webhooksProjection, recipeHealthProjection, monitorChangesProjection, contentMonitorsProjection, retentionProjection, lifecycleProjection,
]
