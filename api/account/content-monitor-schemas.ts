import { MONITOR_STATUSES, RULE_TYPES } from '../../domain/content-monitor/events.js'
import { MAX_FREQUENCY_MINUTES, MAX_MONITOR_NAME_LENGTH, MAX_NEEDLE_LENGTH, MIN_FREQUENCY_MINUTES } from '../../domain/content-monitor/limits.js'
import { SCRAPE_BACKENDS } from '../../domain/scrape/events.js'

const nullable = (type: string, description?: string) => ({ type: [type, 'null'], ...(description ? { description } : {}) })

export const RuleSchema = {
  type: 'object',
  required: ['type', 'config'],
  description: 'Edge-triggered: a rule fires once on the transition between two runs that got an answer, never on the first run (the baseline).',
  properties: {
    type: { type: 'string', enum: RULE_TYPES, description: '`any_change`: the normalized visible text changed; `text_appeared` / `text_disappeared`: the needle went from absent to present / present to absent; `status_code_change`: the HTTP status differs from the last answer\'s.' },
    config: {
      type: 'object',
      properties: {
        needle: { type: 'string', minLength: 1, maxLength: MAX_NEEDLE_LENGTH, description: 'Text rules: searched in the visible text (whitespace collapsed).' },
        caseSensitive: { type: 'boolean', description: 'Text rules; default false.' },
      },
    },
  },
} as const

export const SnapshotSchema = {
  type: ['object', 'null'],
  required: ['hash', 'preview', 'statusCode', 'contentLength', 'capturedAt'],
  properties: {
    hash: nullable('string', '`n<normalization version>:<sha256 of the normalized visible text>`; null for an error answer without a body.'),
    preview: nullable('string', 'First 200 characters of the normalized text.'),
    statusCode: nullable('integer'), contentLength: nullable('integer'), capturedAt: { type: 'string', format: 'date-time' },
  },
} as const

const monitorProperties = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string' },
  url: { type: 'string' },
  backend: { type: 'string', enum: SCRAPE_BACKENDS },
  status: { type: 'string', enum: MONITOR_STATUSES },
  frequencyMinutes: { type: 'integer', minimum: MIN_FREQUENCY_MINUTES, maximum: MAX_FREQUENCY_MINUTES },
  rule: RuleSchema,
  nextRunAt: nullable('string'), lastRunAt: nullable('string'), lastChangeAt: nullable('string'), lastChangeSummary: nullable('string'),
  lastSnapshot: SnapshotSchema,
  consecutiveFailures: { type: 'integer' },
  createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
} as const

export const MonitorItemSchema = { type: 'object', required: Object.keys(monitorProperties), properties: monitorProperties } as const
export const MonitorSchema = {
  type: 'object',
  required: [...Object.keys(monitorProperties), 'lastErrorCode', 'lastErrorMessage'],
  properties: { ...monitorProperties, lastErrorCode: nullable('string', 'The last failed run\'s code: its job\'s failure reason (`network_error`, `timeout`, `response_too_large`, ...), or `extraction_timeout` / `extraction_failed` when reading the answer passed its worker\'s 10 s deadline or the worker died (docs/limits.md).'), lastErrorMessage: nullable('string') },
} as const

export const RunSchema = {
  type: 'object',
  required: ['id', 'monitorId', 'status', 'changeDetected', 'changeSummary', 'scrapeId', 'statusCode', 'errorCode', 'errorMessage', 'scheduledAt', 'startedAt', 'completedAt', 'snapshotBefore', 'snapshotAfter'],
  properties: {
    id: { type: 'string' }, monitorId: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'running', 'succeeded', 'failed', 'triggered', 'skipped'] },
    changeDetected: { type: 'boolean' }, changeSummary: nullable('string'),
    scrapeId: nullable('string', 'The v1 job of the run (same id), once started.'),
    statusCode: nullable('integer'), errorCode: nullable('string', 'Failed runs: the job\'s failure reason, or `extraction_timeout` / `extraction_failed` (reading the answer passed its 10 s deadline, or its worker died). Skipped runs: the plan limit\'s code, or `missed`.'), errorMessage: nullable('string'),
    scheduledAt: { type: 'string', format: 'date-time' }, startedAt: nullable('string'), completedAt: nullable('string'),
    snapshotBefore: SnapshotSchema, snapshotAfter: SnapshotSchema,
  },
} as const

export const CreateMonitorBody = {
  type: 'object',
  required: ['url', 'backend', 'frequencyMinutes', 'rule'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_MONITOR_NAME_LENGTH, description: 'Defaults to the URL.' },
    url: { type: 'string' }, backend: { type: 'string', enum: SCRAPE_BACKENDS },
    frequencyMinutes: { type: 'integer', minimum: MIN_FREQUENCY_MINUTES, maximum: MAX_FREQUENCY_MINUTES }, rule: RuleSchema,
  },
} as const

export const PatchMonitorBody = {
  type: 'object',
  properties: {
    name: CreateMonitorBody.properties.name, frequencyMinutes: CreateMonitorBody.properties.frequencyMinutes,
    status: { type: 'string', enum: MONITOR_STATUSES }, rule: RuleSchema,
  },
} as const
