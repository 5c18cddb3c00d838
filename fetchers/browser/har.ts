import type { NetworkEvent } from './driver.js'

/** HAR 1.2 built from a page's network events. Bodies are never recorded: `content` carries size and type only. */

interface Pending {
  request: Extract<NetworkEvent, { kind: 'request' }>
  response?: Extract<NetworkEvent, { kind: 'response' }>
  endTime?: number
  encodedBytes?: number
  errorText?: string
}

const nameValues = (headers: Readonly<Record<string, string>>) => Object.entries(headers).map(([name, value]) => ({ name, value }))

const queryString = (url: string) => {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

const headerValue = (headers: Readonly<Record<string, string>>, name: string) =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]

export class HarRecorder {
  readonly #entries = new Map<string, Pending>()
  readonly #order: string[] = []

  readonly record = (event: NetworkEvent): void => {
    if (event.kind === 'request') {
      // Drivers give every request object (each redirect hop too) its own id.
      this.#entries.set(event.id, { request: event })
      this.#order.push(event.id)
      return
    }
    const pending = this.#entries.get(event.id)
    if (!pending) return
    if (event.kind === 'response') pending.response = event
    else if (event.kind === 'finished') { pending.endTime = event.time; if (event.encodedBytes !== undefined) pending.encodedBytes = event.encodedBytes }
    else { pending.endTime = event.time; pending.errorText = event.errorText }
  }

  toHar(page: { readonly title: string; readonly startedAt: number; readonly onLoadMs?: number }, browser: { name: string; version: string }): unknown {
    const entries = this.#order.map((id) => this.#entries.get(id)).filter((p): p is Pending => p !== undefined)
    return {
      log: {
        version: '1.2',
        creator: { name: 'scrapeworks', version: '0.1.0' },
        browser,
        pages: [{
          startedDateTime: new Date(page.startedAt).toISOString(), id: 'page_1', title: page.title,
          pageTimings: { onContentLoad: -1, onLoad: page.onLoadMs ?? -1 },
        }],
        entries: entries.map((p) => this.#entry(p)),
      },
    }
  }

  #entry(p: Pending) {
    const { request, response } = p
    const responseAt = response?.time ?? p.endTime ?? request.time
    const endAt = p.endTime ?? responseAt
    const wait = Math.max(0, responseAt - request.time)
    const receive = Math.max(0, endAt - responseAt)
    const headers = response?.headers ?? {}
    return {
      pageref: 'page_1',
      startedDateTime: new Date(request.time).toISOString(),
      time: wait + receive,
      request: {
        method: request.method, url: request.url, httpVersion: 'HTTP/1.1', cookies: [], headers: nameValues(request.headers),
        queryString: queryString(request.url), headersSize: -1, bodySize: request.postDataSize,
      },
      response: {
        status: response?.status ?? 0, statusText: response?.statusText ?? '', httpVersion: 'HTTP/1.1', cookies: [],
        headers: nameValues(headers),
        content: { size: p.encodedBytes ?? -1, mimeType: headerValue(headers, 'content-type') ?? '' },
        redirectURL: headerValue(headers, 'location') ?? '', headersSize: -1, bodySize: p.encodedBytes ?? -1,
      },
      cache: {},
      timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive },
      ...(response?.remoteAddress ? { serverIPAddress: response.remoteAddress } : {}),
      _resourceType: request.resourceType,
      ...(p.errorText ? { _failureText: p.errorText } : {}),
    }
  }
}
