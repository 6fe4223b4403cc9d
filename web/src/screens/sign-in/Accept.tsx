import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../../api/client';
import { fieldErrors } from '../../api/errors';
import { fromSessionAnswer, setSession } from '../../api/session';
import { FormError, TextField } from '../../components/FormField';

/** Accepting an invitation (`/app/accept?token=…`): an optional name and password, then `POST /v1/invitations/accept`. */
export default function Accept() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    const password = String(form.get('password') ?? '');
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const body = { token, ...(name && { name }), ...(password && { password }) };
      const s = await call(api.POST('/v1/invitations/accept', { body }));
      setSession(fromSessionAnswer(s));
      void navigate('/codes', { replace: true });
    } catch (err) {
      setErrors(fieldErrors(err, ['name', 'password']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>Join the workspace</h1>
        {!token ? (
          <p role="alert">This invitation link is incomplete. Open the link from the e-mail again.</p>
        ) : (
          <form onSubmit={submit} noValidate>
            <p>You were invited to a Scanlink workspace. Accept to sign in.</p>
            <FormError message={errors.general} />
            <TextField label="Your name (optional)" name="name" autoComplete="name" error={errors.fields.name} />
            <TextField
              label="Choose a password (optional)"
              name="password"
              type="password"
              autoComplete="new-password"
              hint="At least 12 characters. Without one, sign in with e-mail links."
              error={errors.fields.password}
            />
            <button type="submit" className="button" disabled={busy}>
              Accept the invitation
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
