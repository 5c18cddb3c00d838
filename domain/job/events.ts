import { Schema } from 'effect'
import { RecipeRunRecord } from '../recipe/run-spec.js'
import { JobSpec } from './spec-schema.js'
import { JOB_ORIGIN_KINDS, JobOrigin } from './origin.js'

export const ArtifactRecord = Schema.Struct({
  artifact_id: Schema.String,
  artifact_type: Schema.String,
  content_type: Schema.String,
  size: Schema.Number,
  sha256: Schema.String,
  blob_key: Schema.String,
  created_at: Schema.String,
})
export type ArtifactRecord = typeof ArtifactRecord.Type

/** What the engine observed; always present on a finished job that reached the target. */
export const Manifest = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type Manifest = typeof Manifest.Type

/**
 * The kind of the job's recorded origin, copied to its terminal event: the processors that finish runs and scrapes
 * tell their jobs' ends from the event alone, instead of loading the stream of every job that ends. Absent on
 * terminal events recorded before it was added (whoever needs to know then loads the job); events recorded before
 * origins were facts hold at most `monitor_run`, `content_monitor_run` and `scrape`.
 */
export const JobOriginKindSchema = Schema.Literal(...JOB_ORIGIN_KINDS)
const origins = Schema.optional(Schema.Array(JobOriginKindSchema))
/**
 * The job's origin, copied from its request: present on every terminal event written since charges are CreditsCharged
 * events, so an end without it is one whose charge the credit ledger still derives by the earlier rule.
 */
const endOrigin = Schema.optional(JobOrigin)

export class JobRequested extends Schema.TaggedClass<JobRequested>()('JobRequested', {
  job_id: Schema.String,
  org_id: Schema.String,
  api_key_id: Schema.NullOr(Schema.String),
  /** Validated by validateJobSpec before it is recorded; a customer proxy password in it is sealed. */
  spec: JobSpec,
  credit_weight: Schema.Number,
  requested_at: Schema.String,
  /** Set by the command that created the job; events written before it existed are upcast (domain/job/legacy-origin.ts). */
  origin: JobOrigin,
}) {}

export class JobStarted extends Schema.TaggedClass<JobStarted>()('JobStarted', {
  job_id: Schema.String,
  attempt: Schema.Number,
  worker_id: Schema.String,
  started_at: Schema.String,
}) {}

export class JobSucceeded extends Schema.TaggedClass<JobSucceeded>()('JobSucceeded', {
  job_id: Schema.String,
  manifest: Manifest,
  artifacts: Schema.Array(ArtifactRecord),
  finished_at: Schema.String,
  /** Recipe runs: the outcome, output and credits charged. */
  recipe: Schema.optional(RecipeRunRecord),
  origins,
  origin: endOrigin,
}) {}

export class JobFailed extends Schema.TaggedClass<JobFailed>()('JobFailed', {
  job_id: Schema.String,
  failure_reason: Schema.String,
  message: Schema.String,
  manifest: Schema.optional(Manifest),
  artifacts: Schema.optional(Schema.Array(ArtifactRecord)),
  finished_at: Schema.String,
  /** Recipe runs: the outcome (never billed on a failed job) and why. */
  recipe: Schema.optional(RecipeRunRecord),
  origins,
  origin: endOrigin,
}) {}

/** A user asked to delete a finished job (DELETE /v1/jobs/{id}); the purger carries it out unless a legal hold covers it. */
export class JobDeletionRequested extends Schema.TaggedClass<JobDeletionRequested>()('JobDeletionRequested', {
  job_id: Schema.String,
  requested_at: Schema.String,
}) {}

export const PurgeReason = Schema.Literal('retention_expired', 'deletion_requested')
export type PurgeReason = typeof PurgeReason.Type

/** Tombstone of one artifact (SPEC 3.7 step 1): its metadata leaves every API result; its blob is deleted next. */
export class ArtifactPurged extends Schema.TaggedClass<ArtifactPurged>()('ArtifactPurged', {
  job_id: Schema.String,
  artifact_id: Schema.String,
  blob_key: Schema.String,
  reason: PurgeReason,
  purged_at: Schema.String,
}) {}

/** Tombstone of a job (SPEC 3.7 step 1), after its artifacts': the job leaves every API result and never returns on replay. */
export class JobPurged extends Schema.TaggedClass<JobPurged>()('JobPurged', {
  job_id: Schema.String,
  reason: PurgeReason,
  purged_at: Schema.String,
}) {}

/** The purge record of one artifact (SPEC 3.7 steps 2 and 3): its blob was deleted from the blob store. */
export class ArtifactBlobDeleted extends Schema.TaggedClass<ArtifactBlobDeleted>()('ArtifactBlobDeleted', {
  job_id: Schema.String,
  artifact_id: Schema.String,
  deleted_at: Schema.String,
}) {}

/** Why a job cost credits (domain/credits/charge.ts decides it once, with the job's end). */
export const ChargeReason = Schema.Literal('job_succeeded', 'monitor_run_delivered', 'recipe_units')
export type ChargeReason = typeof ChargeReason.Type

/** What a finished job cost: the one record of money the ledger, usage, metrics and the dashboard read. Appended with the job's end. */
export class CreditsCharged extends Schema.TaggedClass<CreditsCharged>()('CreditsCharged', {
  job_id: Schema.String,
  org_id: Schema.String,
  credits: Schema.Number,
  reason: ChargeReason,
  charged_at: Schema.String,
}) {}

export const JobEvent = Schema.Union(JobRequested, JobStarted, JobSucceeded, JobFailed, CreditsCharged, JobDeletionRequested, ArtifactPurged, JobPurged, ArtifactBlobDeleted)
export type JobEvent = typeof JobEvent.Type
