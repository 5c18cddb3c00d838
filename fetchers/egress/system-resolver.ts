import { lookup } from 'node:dns/promises'
import type { Resolver } from './types.js'

/** getaddrinfo through libuv: the same answers (including /etc/hosts) a plain socket would get. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true })
  return answers.flatMap((a) => (a.family === 4 || a.family === 6 ? [{ address: a.address, family: a.family }] : []))
}

export const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`DNS lookup timed out after ${ms} ms`)), ms)
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    )
  })
