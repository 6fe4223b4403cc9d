import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, call, raw } from '../../api/client';
import { fieldErrors, asApiError } from '../../api/errors';
import { fromSessionAnswer, setSession } from '../../api/session';
import { FormError, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Loading } from '../../components/States';

interface Providers {
  password: boolean;
  email_link: boolean;
  sso: boolean;
}

/** Only same-app paths are followed after sign-in (never another origin). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/codes';
}

/**
 * Sign-in: e-mail + password, a one-time e-mail link (`?token=` from the link verifies at once), and single sign-on when
 * `GET /v1/session/providers` says it is configured (a 404 there means no SSO).
 */
export default function SignIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { status } = useSession();
  const next = safeNext(params.get('next'));
  const token = params.get('token');
  const [mode, setMode] = useState<'password' | 'link'>('password');
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const [linkSent, setLinkSent] = useState(false);
  const [verifying, setVerifying] = useState(Boolean(token));
  const [providers, setProviders] = useState<Providers>({ password: true, email_link: true, sso: false });
  const verified = useRef(false);

  useEffect(() => {
    let live = true;
    raw('/v1/session/providers', { headers: { accept: 'application/json' } })
      .then((r) => r.json() as Promise<Providers>)
      .then((p) => live && setProviders({ password: p.password !== false, email_link: p.email_link !== false, sso: p.sso === true }))
      .catch(() => undefined); // 404 (not offered) or unreachable: password and e-mail link only
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    if (!token || verified.current) return;
    verified.current = true;
    call(api.POST('/v1/session/link/verify', { body: { token } })).then(
      (s) => {
        setSession(fromSessionAnswer(s));
        void navigate(next, { replace: true });
      },
      (e: unknown) => {
        setVerifying(false);
        setErrors({ fields: {}, general: `${asApiError(e).message} Ask for a new link below.` });
        setMode('link');
      },
    );
  }, [token, next, navigate]);

  if (status === 'signed-in' && !token) return <Navigate to={next} replace />;
  if (verifying) return <Loading label="Checking your sign-in link…" />;

  const submitPassword = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const s = await call(api.POST('/v1/session', { body: { email: String(form.get('email')), password: String(form.get('password')) } }));
      setSession(fromSessionAnswer(s));
      void navigate(next, { replace: true });
    } catch (err) {
      setErrors(fieldErrors(err, ['email', 'password']));
    } finally {
      setBusy(false);
    }
  };
  const submitLink = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setErrors({ fields: {} });
    try {
      await call(api.POST('/v1/session/link', { body: { email: String(form.get('email')) } }));
      setLinkSent(true);
    } catch (err) {
      setErrors(fieldErrors(err, ['email']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>Sign in to Scanlink</h1>
        <FormError message={errors.general} />
        {mode === 'password' ? (
          <form onSubmit={submitPassword} noValidate>
            <TextField label="E-mail" name="email" type="email" autoComplete="username" required error={errors.fields.email} />
            <TextField label="Password" name="password" type="password" autoComplete="current-password" required error={errors.fields.password} />
            <button type="submit" className="button" disabled={busy}>
              Sign in
            </button>
          </form>
        ) : linkSent ? (
          <p role="status">If an account uses that address, a sign-in link is on its way. It works once, for 15 minutes.</p>
        ) : (
          <form onSubmit={submitLink} noValidate>
            <TextField label="E-mail" name="email" type="email" autoComplete="username" required error={errors.fields.email} />
            <button type="submit" className="button" disabled={busy}>
              E-mail me a sign-in link
            </button>
          </form>
        )}
        <div className="auth-alt">
          {mode === 'password' && providers.email_link && (
            <button type="button" className="link" onClick={() => (setMode('link'), setErrors({ fields: {} }))}>
              Sign in with an e-mail link instead
            </button>
          )}
          {mode === 'link' && (
            <button type="button" className="link" onClick={() => (setMode('password'), setLinkSent(false), setErrors({ fields: {} }))}>
              Sign in with a password instead
            </button>
          )}
          {providers.sso && (
            <a className="button secondary" href={`/v1/session/sso?return_to=${encodeURIComponent(`/app${next}`)}`}>
              Sign in with single sign-on
            </a>
          )}
        </div>
      </div>
    </main>
  );
}
