import { CREDIT_WEIGHTS } from '../plans.js'
import type { JobType } from '../job/spec.js'
import type { Contract } from './types.js'

/**
 * Unit price (SPEC 3.5): engine credit weight times the recipe multiplier, rounded up. The product is rounded to
 * micro-credits first, so float noise (5 × 1.2 = 6.000000000000001) does not add a credit.
 */
export const creditsPerUnit = (engine: JobType, multiplier: number) => Math.ceil(Math.round(CREDIT_WEIGHTS[engine] * multiplier * 1e6) / 1e6)

/** Pages a page-billed run may fetch: what the caller asked for (default the plan's cap), never above the plan's cap. */
export const pagesAllowed = (requested: number | undefined, planMaxPages: number) => Math.min(requested ?? planMaxPages, planMaxPages)

/** Units a run reserves at admission: its page allowance for page-billed contracts, else one run. */
export const reservedUnits = (contract: Contract, maxPages: number) => (contract.billing.unit === 'page' ? maxPages : 1)

/** Units a finished run is charged: pages fetched (at least one) for page-billed contracts, else one run. */
export const chargedUnits = (contract: Contract, pagesFetched: number) => (contract.billing.unit === 'page' ? Math.max(1, pagesFetched) : 1)
