export const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, { $ref: 'ErrorBody#' }]))
export const security = [{ apiKey: [] }]

/**
 * Paging of every list endpoint. The deepest page stays far inside what a store can skip (at most 1,000,000 items),
 * so an absurd page answers 422 `invalid_page` instead of failing in the store.
 */
export const MAX_PAGE = 10_000
export const MAX_PER_PAGE = 100
export const pagingProperties = (defaultPerPage: number) => ({
  page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: `1 to ${MAX_PAGE}; outside answers 422 \`invalid_page\`.` },
  per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: defaultPerPage, description: `1 to ${MAX_PER_PAGE}; outside answers 422 \`invalid_per_page\`.` },
}) as const
