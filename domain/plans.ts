import type { JobType } from './job/spec.js'

export const PLAN_NAMES = ['free', 'starter', 'pro', 'business', 'enterprise'] as const
export type PlanName = (typeof PLAN_NAMES)[number]

export interface Plan {
  readonly name: PlanName
  readonly concurrentJobs: number
  readonly monthlyCredits: number
  readonly recipeMaxPages: number
  readonly monitoring: { readonly maxMonitors: number; readonly minIntervalSeconds: number } | null
  readonly changeDetection: { readonly maxMonitors: number; readonly historyDays: number } | null
  readonly retention: { readonly defaultDays: number; readonly maxDays: number; readonly adjustable: boolean }
  readonly legalHolds: boolean
  readonly engines: readonly JobType[]
}

/** SPEC.md section 8. Enterprise values are contractual; these are the defaults a self-hosted operator starts from. */
export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: 'free', concurrentJobs: 2, monthlyCredits: 1_000, recipeMaxPages: 3,
    monitoring: null, changeDetection: null,
    retention: { defaultDays: 7, maxDays: 7, adjustable: false }, legalHolds: false,
    engines: ['light', 'standard', 'stealth'],
  },
  starter: {
    name: 'starter', concurrentJobs: 10, monthlyCredits: 150_000, recipeMaxPages: 25,
    monitoring: { maxMonitors: 5, minIntervalSeconds: 3600 }, changeDetection: { maxMonitors: 5, historyDays: 30 },
    retention: { defaultDays: 30, maxDays: 30, adjustable: false }, legalHolds: false,
    engines: ['light', 'standard', 'stealth'],
  },
  pro: {
    name: 'pro', concurrentJobs: 50, monthlyCredits: 1_000_000, recipeMaxPages: 100,
    monitoring: { maxMonitors: 25, minIntervalSeconds: 900 }, changeDetection: { maxMonitors: 25, historyDays: 90 },
    retention: { defaultDays: 30, maxDays: 30, adjustable: false }, legalHolds: true,
    engines: ['light', 'standard', 'stealth'],
  },
  business: {
    name: 'business', concurrentJobs: 100, monthlyCredits: 4_000_000, recipeMaxPages: 250,
    monitoring: { maxMonitors: 100, minIntervalSeconds: 300 }, changeDetection: { maxMonitors: 100, historyDays: 180 },
    retention: { defaultDays: 90, maxDays: 90, adjustable: true }, legalHolds: true,
    engines: ['light', 'standard', 'stealth'],
  },
  enterprise: {
    name: 'enterprise', concurrentJobs: 500, monthlyCredits: 50_000_000, recipeMaxPages: 500,
    monitoring: { maxMonitors: Number.MAX_SAFE_INTEGER, minIntervalSeconds: 60 }, changeDetection: { maxMonitors: Number.MAX_SAFE_INTEGER, historyDays: 365 },
    retention: { defaultDays: 90, maxDays: 365, adjustable: true }, legalHolds: true,
    engines: ['light', 'standard', 'stealth'],
  },
}

export const CREDIT_WEIGHTS: Readonly<Record<JobType, number>> = { light: 1, standard: 5, stealth: 30 }

export const isPlanName = (v: unknown): v is PlanName => typeof v === 'string' && (PLAN_NAMES as readonly string[]).includes(v)
