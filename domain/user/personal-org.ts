import { ORG_NAME_MAX_LENGTH } from '../org/decider.js'

/**
 * The name of a user's own organization: their address, shortened with an ellipsis when it is longer than an
 * organization name may be (an address may have 254 characters). Cut between code points, never inside a pair.
 */
export const personalOrgName = (email: string): string => {
  if (email.length <= ORG_NAME_MAX_LENGTH) return email
  let name = ''
  for (const character of email) {
    if (name.length + character.length > ORG_NAME_MAX_LENGTH - 1) break
    name += character
  }
  return `${name}…`
}
