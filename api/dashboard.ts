import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'

export const DASHBOARD_PATH = '/app'

const TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8', 'app.js': 'text/javascript; charset=utf-8', 'app.js.map': 'application/json', 'style.css': 'text/css; charset=utf-8',
}

/**
 * The page may load its own script and styles only; images and fetches may also go to https origins, where artifact
 * downloads live on scale-out (signed blob URLs). Inline style attributes size the usage chart's bars.
 */
const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; connect-src 'self' https:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/**
 * The dashboard's built files (web/dist, made by `npm install` or `npm start`), served from memory by the api role:
 * a fixed set of names, so no request path ever reaches the file system. Without a build, /app says how to make one.
 */
export const dashboardRoutes = async (app: FastifyInstance, distDir: string) => {
  const files = new Map(Object.keys(TYPES).filter((name) => existsSync(join(distDir, name))).map((name) => [name, readFileSync(join(distDir, name))]))
  const send = (name: string) => async (_request: unknown, reply: import('fastify').FastifyReply) => {
    const body = files.get(name)
    if (!body) return reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build:dashboard` (npm install and npm start do it).\n')
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer')
    // The page itself is always fresh; its script and styles change only with a new build, which a reload picks up.
    reply.header('cache-control', name === 'index.html' ? 'no-cache' : 'public, max-age=300')
    return reply.type(TYPES[name]!).send(body)
  }
  const hidden = { schema: { hide: true } }
  // A browser pointed at the service's address lands on the dashboard, not on a 404.
  app.get('/', hidden, async (_request, reply) => reply.redirect(DASHBOARD_PATH))
  app.get(DASHBOARD_PATH, hidden, send('index.html'))
  app.get(`${DASHBOARD_PATH}/`, hidden, send('index.html'))
  for (const name of Object.keys(TYPES)) app.get(`${DASHBOARD_PATH}/${name}`, hidden, send(name))
}
