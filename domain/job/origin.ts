import { Schema } from 'effect'

/**
 * Where a job came from, recorded on its JobRequested by the command that created it and by nothing else: a customer
 * field (tags, idempotency token, name) never decides it. Every processor, projection and fold that treats a job as
 * a scrape's, a monitor run's or a recipe run's reads this.
 */
export const JobOrigin = Schema.Union(
  /** POST /v1/jobs with an API key. */
  Schema.TaggedStruct('api', {}),
  /** A user's scrape of the account API (the job id is the scrape id). */
  Schema.TaggedStruct('scrape', { user_id: Schema.String }),
  /** A content monitor's run (the job id is the run id). */
  Schema.TaggedStruct('content_monitor_run', { monitor_id: Schema.String, run_id: Schema.String }),
  /** A v1 monitor's run. */
  Schema.TaggedStruct('monitor_run', { monitor_id: Schema.String, run_id: Schema.String }),
  /** POST /v1/recipes/{slug}/runs. */
  Schema.TaggedStruct('recipe_run', { slug: Schema.String, contract: Schema.Number, impl: Schema.Number }),
  /** Work the service submits for itself (a recipe's health test run), named by its creator. */
  Schema.TaggedStruct('service', { name: Schema.String }),
)
export type JobOrigin = typeof JobOrigin.Type
export type JobOriginKind = JobOrigin['_tag']

export const JOB_ORIGIN_KINDS = ['api', 'scrape', 'content_monitor_run', 'monitor_run', 'recipe_run', 'service'] as const satisfies readonly JobOriginKind[]

export const API_ORIGIN: JobOrigin = { _tag: 'api' }
