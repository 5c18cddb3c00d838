import type { Service } from './service.js'

/** Creating a webhook endpoint and pinging it through a service's API, failing loudly on any other answer. */
export const webhookEndpointCalls = (svc: Service) => ({
  endpoint: async (key: string, url: string) => {
    const created = await svc.api('POST', '/v1/webhook-endpoints', { key, body: { url, enabled_events: ['job.completed'] } })
    if (created.status !== 201) throw new Error(`endpoint creation answered ${created.status}: ${created.text}`)
    return created.body.endpoint_id as string
  },
  ping: async (key: string, endpointId: string) => {
    const answer = await svc.api('POST', `/v1/webhook-endpoints/${endpointId}/test`, { key })
    if (answer.status !== 202) throw new Error(`ping answered ${answer.status}: ${answer.text}`)
  },
})
