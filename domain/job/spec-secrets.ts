import { SecretBox } from '../secret-box.js'
import type { JobSpec } from './spec.js'

/** The spec as it may be recorded: a customer proxy password is sealed; everything else is unchanged. */
export const sealSpecSecrets = (spec: JobSpec, box: SecretBox): JobSpec => {
  const password = spec.proxy?.password
  if (password === undefined || SecretBox.isSealed(password)) return spec
  return { ...spec, proxy: { ...spec.proxy!, password: box.seal(password) } }
}

/** The customer proxy password in clear, for the engine that hands it to the gateway. */
export const openProxyPassword = (spec: JobSpec, box: SecretBox): string | undefined => {
  const password = spec.proxy?.password
  if (password === undefined) return undefined
  // Jobs recorded before sealing existed hold the password in clear.
  return SecretBox.isSealed(password) ? box.open(password) : password
}
