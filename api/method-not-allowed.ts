import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { errorBody } from './errors.js'

/** Remembers the methods of every route path, to tell "no such path" (404) from "not this method" (405). */
export const makeMethodIndex = () => {
  const routes: { pattern: RegExp; methods: Set<string> }[] = []
  const byPath = new Map<string, Set<string>>()

  const add = (route: RouteOptions) => {
    let methods = byPath.get(route.url)
    if (!methods) {
      methods = new Set()
      byPath.set(route.url, methods)
      const source = route.url.split('/').map((part) => part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/')
      routes.push({ pattern: new RegExp(`^${source}/?$`), methods })
    }
    for (const method of [route.method].flat()) methods.add(method)
  }

  /** The methods a concrete path answers to, or none when it is no route at all. */
  const allowed = (url: string): string[] => {
    const path = url.split('?')[0] ?? ''
    return [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]))].sort()
  }

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const methods = allowed(request.url)
    if (methods.length > 0) {
      return reply.code(405).header('Allow', methods.join(', '))
        .send(errorBody('method_not_allowed', `${request.method} is not allowed here; allowed: ${methods.join(', ')}`))
    }
    return reply.code(404).send(errorBody('route_not_found', `${request.method} ${request.url.split('?')[0]} is not a route`))
  }

  return { add, notFound }
}
