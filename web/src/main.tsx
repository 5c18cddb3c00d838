import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { call, dropSessionKey, ensureSessionKey, setSessionKey, type User } from './api'
import { SignIn, SignUp, Verify } from './pages/auth'
import { JobDetail } from './pages/job'
import { Jobs } from './pages/jobs'
import { Keys } from './pages/keys'
import { Submit } from './pages/submit'
import { Usage } from './pages/usage'
import { Audit } from './pages/audit'
import { Webhooks } from './pages/webhooks'
import { Monitors } from './pages/monitors'
import { MonitorDetail } from './pages/monitor'
import { ContentMonitors } from './pages/content-monitors'
import { Scrapes } from './pages/scrapes'
import { RecipeDetail, Recipes } from './pages/recipes'
import { Retention } from './pages/retention'
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

const NAV = [
  ['#/jobs', 'Jobs'], ['#/submit', 'Submit'], ['#/monitors', 'Monitors'], ['#/content-monitors', 'Content monitors'], ['#/scrapes', 'Scrapes'],
  ['#/recipes', 'Recipes'], ['#/keys', 'API keys'], ['#/usage', 'Usage'], ['#/webhooks', 'Webhooks'], ['#/retention', 'Retention'], ['#/audit', 'Audit log'],
] as const

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
    await dropSessionKey()
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
  else if (path.startsWith('/monitors/')) page = <MonitorDetail monitorId={decodeURIComponent(path.slice('/monitors/'.length))} />
  else if (path === '/monitors') page = <Monitors />
  else if (path === '/content-monitors') page = <ContentMonitors />
  else if (path === '/scrapes') page = <Scrapes />
  else if (path.startsWith('/recipes/')) page = <RecipeDetail slug={decodeURIComponent(path.slice('/recipes/'.length))} />
  else if (path === '/recipes') page = <Recipes />
  else if (path === '/retention') page = <Retention />
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
            {NAV.map(([href, label]) => <a key={href} href={href} aria-current={current === href || current.startsWith(`${href}/`) ? 'page' : undefined}>{label}</a>)}
          </nav>
        )}
        {user && <div class="who"><a href="/docs">API docs</a><span>{user.email}</span><button type="button" onClick={() => void signOut()}>Sign out</button></div>}
      </header>
      <main id="main" tabIndex={-1}>{page}</main>
    </>
  )
}

const root = document.getElementById('app')!
// The static page holds a plain "Loading…" until the script runs; the app replaces it.
root.replaceChildren()
render(<App />, root)
