import { createHash } from 'node:crypto'

/** API keys are 256-bit random secrets, so a fast hash stores them safely (there is no dictionary to attack). */
export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex')
