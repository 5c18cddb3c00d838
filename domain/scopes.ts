/** Every scope an API key can hold. A key created by `org create` holds all of them. */
export const SCOPES = [
  'jobs.create', 'jobs.read', 'jobs.delete',
  'keys.manage',
  'monitors.write', 'monitors.read',
  'webhooks.manage',
  'recipes.run', 'recipes.read',
  'org.read', 'org.manage',
  'usage.read',
] as const
export type Scope = (typeof SCOPES)[number]

export const isScope = (v: unknown): v is Scope => typeof v === 'string' && (SCOPES as readonly string[]).includes(v)
