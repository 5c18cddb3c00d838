import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, REGISTRATION_CLOSED } from '../api'
import { asApiError, ErrorBox, Field, useLoad } from '../ui'

interface Credentials { email: string; password: string }

/** GET /registration: the REGISTRATION policy (undefined until it answers), so sign-up is offered only where it works. */
const useRegistration = () => useLoad(() => call<{ registration: 'open' | 'closed' }>('GET', '/registration'), []).data?.registration

const CredentialsForm = ({ submitLabel, busy, onSubmit, passwordAutocomplete }: {
  submitLabel: string; busy: boolean; onSubmit: (c: Credentials) => void; passwordAutocomplete: string
}) => {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  return (
    <form onSubmit={(e) => { e.preventDefault(); onSubmit({ email, password }) }}>
      <Field id="email" label="E-mail">
        <input id="email" type="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field id="password" label="Password">
        <input id="password" type="password" autocomplete={passwordAutocomplete} required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </Field>
      <button type="submit" disabled={busy}>{busy ? 'Please wait…' : submitLabel}</button>
    </form>
  )
}

export const SignIn = ({ onSignedIn }: { onSignedIn: () => Promise<void> }) => {
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const signUpOpen = useRegistration() === 'open'
  return (
    <section class="auth">
      <h1>Sign in</h1>
      {error && <ErrorBox error={error} />}
      <CredentialsForm submitLabel="Sign in" busy={busy} passwordAutocomplete="current-password" onSubmit={async (c) => {
        setBusy(true); setError(null)
        try {
          await call('POST', '/login', { body: c })
          await onSignedIn()
        } catch (e) { setError(asApiError(e)) } finally { setBusy(false) }
      }} />
      {signUpOpen && <p>No account yet? <a href="#/signup">Create one</a>.</p>}
    </section>
  )
}

export const SignUp = () => {
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const [sentTo, setSentTo] = useState<string | null>(null)
  const registration = useRegistration()
  // A sign-up link followed on a closed server says so at once, not after a filled-in form.
  if (registration === 'closed') {
    return (
      <section class="auth">
        <h1>Create an account</h1>
        <p role="status">{REGISTRATION_CLOSED} <a href="#/signin">Sign in</a>.</p>
      </section>
    )
  }
  if (sentTo) {
    return (
      <section class="auth">
        <h1>Check your e-mail</h1>
        <p role="status">We sent a verification link to <b>{sentTo}</b>. Open it, then <a href="#/signin">sign in</a>.</p>
      </section>
    )
  }
  return (
    <section class="auth">
      <h1>Create an account</h1>
      {error && <ErrorBox error={error} />}
      <CredentialsForm submitLabel="Create account" busy={busy} passwordAutocomplete="new-password" onSubmit={async (c) => {
        setBusy(true); setError(null)
        try {
          await call('POST', '/register', { body: c })
          setSentTo(c.email.trim())
        } catch (e) { setError(asApiError(e)) } finally { setBusy(false) }
      }} />
      <p>Already registered? <a href="#/signin">Sign in</a>.</p>
    </section>
  )
}

/** The verification e-mail's token, taken from `#/verify?token=…` (or pasted link) and sent to GET /verify. */
export const Verify = ({ token }: { token: string | null }) => {
  const [state, setState] = useState<'working' | 'verified' | ApiError>('working')
  useEffect(() => {
    if (!token) { setState(new ApiError(400, 'missing_token', 'the link has no token; open the link from the e-mail')); return }
    call(`GET`, `/verify?token=${encodeURIComponent(token)}`).then(() => setState('verified'), (e: unknown) => setState(asApiError(e)))
  }, [token])
  return (
    <section class="auth">
      <h1>E-mail verification</h1>
      {state === 'working' && <p role="status">Verifying…</p>}
      {state === 'verified' && <p role="status">Your e-mail address is verified. <a href="#/signin">Sign in</a>.</p>}
      {state instanceof ApiError && <ErrorBox error={state} />}
    </section>
  )
}
