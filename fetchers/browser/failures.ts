/** A job outcome decided inside the browser flow: carried up as an exception, turned into a failed outcome once. */
export class JobFailure extends Error {
  constructor(readonly reason: string, message: string) {
    super(message)
  }
}

const errorText = (error: unknown) => ((error as Error)?.message ?? String(error)).split('\n')[0]!.slice(0, 300)

export const isTimeoutError = (error: unknown): boolean =>
  (error as Error)?.name === 'TimeoutError' || /timeout .*exceeded|timed out/i.test(errorText(error))

/** Chromium's net error code in a navigation failure, e.g. `ERR_CONNECTION_REFUSED`. */
export const netError = (error: unknown): string | undefined => /net::(ERR_[A-Z_]+)/.exec(errorText(error))?.[1]

/** Errors that mean the page, its context or the browser went away under the job. */
export const isTargetGone = (error: unknown): boolean =>
  /Target (page, context or browser )?(has been )?closed|Target closed|Browser (has been )?(closed|disconnected)|browser has disconnected|Session closed|Connection closed|Page crashed|Navigation failed because page crashed|Protocol error.*(Target closed|Session closed)/i
    .test(errorText(error))

/** Proxy and tunnel errors: the gateway (or a customer proxy behind it) refused or could not connect. */
const PROXY_ERRORS = new Set(['ERR_TUNNEL_CONNECTION_FAILED', 'ERR_PROXY_CONNECTION_FAILED', 'ERR_PROXY_AUTH_UNSUPPORTED', 'ERR_PROXY_AUTH_REQUESTED', 'ERR_PROXY_CERTIFICATE_INVALID', 'ERR_NO_SUPPORTED_PROXIES', 'ERR_HTTPS_PROXY_TUNNEL_RESPONSE_REDIRECT'])

/** True for a net error of the proxy tunnel (the gateway refused the CONNECT or could not open it). */
export const isProxyError = (errorText: string): boolean => PROXY_ERRORS.has(/(ERR_[A-Z_]+)/.exec(errorText)?.[1] ?? '')

/** Classifies a navigation failure that is not a timeout, a crash or the job's own deadline. */
export const navigationFailure = (error: unknown, customProxy: boolean): JobFailure => {
  const code = netError(error)
  if (code && PROXY_ERRORS.has(code)) {
    return customProxy
      ? new JobFailure('proxy_error', `the customer proxy could not reach the target (${code})`)
      : new JobFailure('network_error', `the target could not be reached through the egress gateway (${code})`)
  }
  if (code === 'ERR_ABORTED') return new JobFailure('network_error', 'the navigation was aborted (the response may be a download or was cancelled)')
  return new JobFailure('network_error', `could not load the page: ${code ?? errorText(error)}`)
}

export const describeError = errorText
