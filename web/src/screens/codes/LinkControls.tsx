import { CheckboxField, TextField } from '../../components/FormField';
import { fromLocalInput } from '../../components/local-time';

/** Link controls of a dynamic code: a password, an expiry (with where scans go after it) and a scan limit. The expiry is
 * typed in the browser's time zone (`datetime-local`). */
export interface LinkControls {
  password?: string;
  /** Remove the code's password (PATCH `password: null`). */
  removePassword?: boolean;
  expires_at?: string;
  expired_url?: string;
  max_scans?: string;
}

export const LINK_CONTROL_FIELDS = ['password', 'expires_at', 'expired_url', 'max_scans'];

/**
 * The body fields of the controls set in the form. With `clearing`, empty expiry, URL and limit are sent as null. A
 * GS1 code (`gs1`) takes an expiry and its URL only.
 */
export function linkControlBody(c: LinkControls, clearing: boolean, { gs1 = false }: { gs1?: boolean } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.expires_at) out.expires_at = fromLocalInput(c.expires_at);
  else if (clearing) out.expires_at = null;
  if (c.expired_url) out.expired_url = c.expired_url;
  else if (clearing) out.expired_url = null;
  if (gs1) return out;
  if (c.removePassword) out.password = null;
  else if (c.password) out.password = c.password;
  if (c.max_scans) out.max_scans = /^\d+$/.test(c.max_scans) ? Number(c.max_scans) : c.max_scans;
  else if (clearing) out.max_scans = null;
  return out;
}

export function LinkControlFields({
  value,
  onChange,
  errors,
  hasPassword,
  gs1 = false,
  disabled,
}: {
  value: LinkControls;
  onChange: (v: LinkControls) => void;
  errors: Record<string, string>;
  hasPassword?: boolean;
  /** A GS1 code: expiry and its URL only. */
  gs1?: boolean;
  /** Shown but not editable (a viewer). */
  disabled?: boolean;
}) {
  const set = (patch: Partial<LinkControls>) => onChange({ ...value, ...patch });
  return (
    <fieldset disabled={disabled}>
      <legend>Link controls</legend>
      {!gs1 && (
        <>
          <TextField
            label={hasPassword ? 'New password' : 'Password'}
            type="password"
            autoComplete="new-password"
            value={value.password ?? ''}
            onChange={(e) => set({ password: e.target.value })}
            hint={hasPassword ? 'This code asks for a password. Type a new one to change it.' : 'Optional: people must type it before the code opens'}
            error={errors.password}
            disabled={value.removePassword === true}
          />
          {hasPassword && (
            <CheckboxField label="Remove the password" checked={value.removePassword === true} onChange={(e) => set({ removePassword: e.target.checked, password: '' })} />
          )}
        </>
      )}
      <TextField label="Expires" type="datetime-local" step={1} value={value.expires_at ?? ''} onChange={(e) => set({ expires_at: e.target.value })} hint="In this browser’s time zone" error={errors.expires_at} />
      <TextField label="After expiry, send scans to" type="url" value={value.expired_url ?? ''} onChange={(e) => set({ expired_url: e.target.value })} hint="Optional; otherwise an “expired” page" error={errors.expired_url} />
      {!gs1 && <TextField label="Maximum scans" inputMode="numeric" value={value.max_scans ?? ''} onChange={(e) => set({ max_scans: e.target.value })} error={errors.max_scans} />}
    </fieldset>
  );
}
