import type { FastifyReply, FastifyRequest } from 'fastify'
import { DASHBOARD_PATH } from '../dashboard.js'

/** A browser following the e-mail's link asks for HTML first; API clients (and curl's `*\/*`) keep the JSON answer. */
export const wantsHtml = (request: FastifyRequest) => {
  const accept = request.headers.accept ?? ''
  const html = accept.indexOf('text/html')
  const json = accept.indexOf('application/json')
  return html >= 0 && (json < 0 || html < json)
}

const OUTCOMES = {
  verified: { title: 'E-mail address verified', text: 'Your address is confirmed. You can sign in and create API keys now.' },
  missing_token: { title: 'This link is incomplete', text: 'The link has no token: open the whole link from the e-mail.' },
  invalid_or_expired_token: { title: 'This link does not work', text: 'The link is unknown, expired or was used already. Sign in to see whether your address is verified.' },
} as const

export type VerifyOutcome = keyof typeof OUTCOMES

/** The verification link's answer to a browser: a small page that says what happened and links to the dashboard. */
export const sendVerifyPage = (reply: FastifyReply, status: number, outcome: VerifyOutcome) => {
  const { title, text } = OUTCOMES[outcome]
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<title>${title} · Scrapeworks</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">`
    + `<h1>${title}</h1><p>${text}</p><p><a href="${DASHBOARD_PATH}">Open the dashboard</a></p></body></html>\n`
  return reply.code(status)
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
    .header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8').send(page)
}
