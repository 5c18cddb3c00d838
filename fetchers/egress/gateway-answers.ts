/**
 * How the gateway's own answers are told apart from a target's: a refused plain-HTTP request carries one of these
 * headers (CONNECT refusals reach the client as a failed tunnel instead), and a connection that failed behind the
 * gateway is answered by proxy-chain with a status in 590-599, which no target uses.
 */
export const EGRESS_DENIED_HEADER = 'x-egress-denied'
export const EGRESS_ERROR_HEADER = 'x-egress-error'

export const isGatewayFailureStatus = (status: number) => status >= 590 && status <= 599
