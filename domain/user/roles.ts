/** A user's role in their organization. Users who register themselves own the organization made for them. */
export const USER_ROLES = ['owner', 'admin', 'member'] as const
export type UserRole = (typeof USER_ROLES)[number]

export const isUserRole = (value: unknown): value is UserRole => typeof value === 'string' && (USER_ROLES as readonly string[]).includes(value)
