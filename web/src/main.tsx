import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { call, sessionKey, setSessionKey, v1, type User } from './api'
import { SignIn, SignUp, Verify } from './pages/auth'
import { JobDetail } from './pages/job'
import { Jobs } from './pages/jobs'
import { Keys } from './pages/keys'
import { Submit } from './pages/submit'
import { Usage } from './pages/usage'
import { Audit } from './pages/audit'
import { Webhooks } from './pages/webhooks'
import { asApiError, ErrorBox, Loading } from './ui'

const useHash = () => {
  const [hash, setHash] = useState(location.hash || '#/jobs')
  useEffect(() => {
    const onChange = () => setHash(location.hash || '#/jobs')
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  return hash
}

const NAV = [['#/jobs', 'Jobs'], ['#/submit', 'Submit'], ['#/keys', 'API keys'], ['#/usage', 'Usage'], ['#/webhooks', 'Webhooks'], ['#/audit', 'Audit log']] as const

/**
 * The v1 API needs a key: at sign-in the dashboard creates one for the user's organization through the account API
 * (POST /api-keys, the user's own session) and keeps it for this tab; sign-out revokes it.
 */
const ensureSessionKey = async () => {
  if (sessionKey()) return
  const created = await call<{ key_id: string; api_key: string }>('POST', '/api-keys', { body: { name: `dashboard ${new Date().toISOString().slice(0, 16)}` } })
  setSessionKey({ key_id: created.key_id, api_key: created.api_key })
}

const App = () => {
  const hash = useHash()
  const [user, setUser] = useState<User | null | undefined>(undefined)
  const [problem, setProblem] = useState<unknown>(null)
  const loadUser = async () => {
    try {
      const me = await call<{ user: User }>('GET', '/me')
      if (me.user.isVerified) await ensureSessionKey()
      setUser(me.user)
      setProblem(null)
    } catch (error) {
      if (asApiError(error).status === 401) { setSessionKey(null); setUser(null) } else setProblem(error)
    }
  }
  useEffect(() => { void loadUser() }, [])
  const signOut = async () => {
    const key = sessionKey()
    if (key) await v1('DELETE', `/v1/keys/${key.key_id}`).catch(() => {})
    setSessionKey(null)
    await call('POST', '/logout').catch(() => {})
    setUser(null)
    location.hash = '#/signin'
  }
  const [path, query] = hash.slice(1).split('?') as [string, string | undefined]

  let page
  if (path === '/verify') page = <Verify token={new URLSearchParams(query ?? '').get('token')} />
  else if (problem) page = <ErrorBox error={asApiError(problem)} retry={() => void loadUser()} />
  else if (user === undefined) page = <Loading what="your account" />
  else if (user === null) page = path === '/signup' ? <SignUp /> : <SignIn onSignedIn={async () => { await loadUser(); location.hash = '#/jobs' }} />
  else if (!user.isVerified) page = <section><h1>Verify your e-mail</h1><p>Open the link we sent to <b>{user.email}</b> to use the dashboard.</p></section>
  else if (path.startsWith('/jobs/')) page = <JobDetail jobId={decodeURIComponent(path.slice('/jobs/'.length))} />
  else if (path === '/submit') page = <Submit />
  else if (path === '/keys') page = <Keys />
  else if (path === '/usage') page = <Usage />
  else if (path === '/webhooks') page = <Webhooks />
  else if (path === '/audit') page = <Audit />
  else page = <Jobs />

  const current = `#${path}`
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <a class="brand" href="#/jobs">Scrapeworks</a>
        {user && user.isVerified && (
          <nav aria-label="Main">
            {NAV.map(([href, label]) => <a key={href} href={href} aria-current={current === href || (href === '#/jobs' && current.startsWith('#/jobs/')) ? 'page' : undefined}>{label}</a>)}
          </nav>
        )}
        {user && <div class="who"><span>{user.email}</span><button type="button" onClick={() => void signOut()}>Sign out</button></div>}
      </header>
      <main id="main" tabIndex={-1}>{page}</main>
    </>
  )
}

const root = document.getElementById('app')!
// The static page holds a plain "Loading…" until the script runs; the app replaces it.
root.replaceChildren()
render(<App />, root)
