import t from 'tap'
import { servedOpenApi } from '../helpers/openapi-document.js'
import { MonitorSchema, RunSchema } from '../../api/account/content-monitor-schemas.js'

/**
 * Issue 31's codes are named in the OpenAPI document where a client meets them: the submission's 422 codes on the
 * operations that validate them (with their schemas), the failure reasons on the job and content-monitor views, and
 * the webhook endpoint's circuit on its view.
 */
const { doc, close } = await servedOpenApi()
t.teardown(close)

/** Everything an operation documents, with the component schemas it refers to, as text. */
const operationText = (path: string, method: string) => {
  const operation = doc.paths[path]?.[method]
  if (!operation) throw new Error(`${method} ${path} is not in the document`)
  let text = JSON.stringify(operation)
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) if (text.includes(`/${name}"`) || text.includes(`"${name}#"`)) text += JSON.stringify(schema)
  return text
}

const EXPECTED: readonly [string, string, readonly string[]][] = [
  ['/v1/jobs', 'post', ['regex_unsupported', 'selector_too_complex', 'extraction_timeout']],
  ['/v1/jobs/{job_id}', 'get', ['extraction_timeout', 'extraction_failed', 'job_interrupted']],
  ['/v1/monitors', 'post', ['selector_too_complex', 'regex_unsupported']],
  ['/v1/webhook-endpoints', 'post', ['webhook_endpoint_limit_reached']],
  ['/v1/webhook-endpoints/{endpoint_id}', 'get', ['circuit', 'half_open', 'retry_at', 'WEBHOOK_CIRCUIT_THRESHOLD']],
]

t.test('each code is named by the operation that answers it', async (t) => {
  for (const [path, method, codes] of EXPECTED) {
    const text = operationText(path, method)
    for (const code of codes) t.ok(text.includes(code), `${method.toUpperCase()} ${path} names ${code}`)
  }
  // The account API's content monitors (its routes are registered only with an account context).
  t.match(JSON.stringify(MonitorSchema), /extraction_timeout/, 'a content monitor\'s lastErrorCode names extraction_timeout')
  t.match(JSON.stringify(RunSchema), /extraction_timeout/, 'a content-monitor run\'s errorCode names extraction_timeout')
})
