import { useState } from 'preact/hooks'
import { SCOPES } from '../../../domain/scopes'
import { ApiError, call, sessionKey, v1, type Key } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, useLoad, when } from '../ui'


export const Keys = () => {
  const keys = useLoad(() => v1<{ items: Key[] }>('GET', '/v1/keys'), [])
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<string[]>(['jobs.create', 'jobs.read'])
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const mine = sessionKey()?.key_id
  const create = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null); setCreated(null)
    try {
      // Through the account API (the session), so the new key is not bounded by this tab's own one-hour key.
      const key = await call<Key & { api_key: string }>('POST', '/api-keys', { body: { name, scopes } })
      setCreated({ name: key.name, secret: key.api_key })
      setName('')
      keys.reload()
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  const revoke = async (key: Key) => {
    if (!confirm(`Revoke the key "${key.name}"? Calls with it will answer 401.`)) return
    try {
      await v1('DELETE', `/v1/keys/${key.key_id}`)
      keys.reload()
    } catch (err) { setError(asApiError(err)) }
  }
  const toggle = (scope: string) => setScopes(scopes.includes(scope) ? scopes.filter((s) => s !== scope) : [...scopes, scope])
  return (
    <section>
      <h1>API keys</h1>
      <h2>Create a key</h2>
      {error && <ErrorBox error={error} />}
      {created && (
        <div class="secret" role="status">
          <p>The secret of <b>{created.name}</b> is shown <b>only this once</b>. Copy it now:</p>
          <p><code class="secret-value" data-testid="new-key-secret">{created.secret}</code>
            <button type="button" onClick={() => void navigator.clipboard?.writeText(created.secret)}>Copy</button>
            <button type="button" onClick={() => setCreated(null)}>I have copied it</button></p>
        </div>
      )}
      <form onSubmit={create} class="stack">
        <Field id="key-name" label="Name">
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <div class="field checkbox" key={scope}>
              <input id={`scope-${scope}`} type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} />
              <label for={`scope-${scope}`}>{scope}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
      </form>
      <h2>Keys</h2>
      {keys.error && <ErrorBox error={keys.error} retry={keys.reload} />}
      {keys.loading && !keys.data && <Loading what="keys" />}
      {keys.data && keys.data.items.length === 0 && <Empty>No keys yet.</Empty>}
      {keys.data && keys.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {keys.data.items.map((key) => (
                <tr key={key.key_id}>
                  <td>{key.name}{key.key_id === mine && <small> (this dashboard session)</small>}</td>
                  <td><code>{key.key_prefix}</code></td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{key.revoked_at ? `revoked ${when(key.revoked_at)}` : key.expires_at ? `${Date.parse(key.expires_at) > Date.now() ? 'active until' : 'expired'} ${when(key.expires_at)}` : 'active'}</td>
                  <td>{!key.revoked_at && key.key_id !== mine && <button type="button" onClick={() => void revoke(key)} aria-label={`Revoke ${key.name}`}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
