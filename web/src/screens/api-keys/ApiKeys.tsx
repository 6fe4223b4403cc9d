import { useState, type FormEvent } from 'react';
import { api, call, rawJson, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { emptyPage, usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { CheckboxField, FormError, SelectField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';

type ApiKey = Schemas['ApiKeyDto'];
const SCOPES = ['qr:read', 'qr:write', 'analytics:read', 'webhooks:read', 'webhooks:write', 'audit:read', 'tokens:manage'] as const;

/**
 * API keys of the workspace (`/v1/tokens`, admins and owners): the list, a new key whose secret is shown once with a
 * copy button, and revocation.
 */
export default function ApiKeys() {
  const { canManage } = useSession();
  const toast = useToast();
  // Editors and viewers are told what they cannot do; nothing is requested for them (the API would answer 403).
  const list = usePagedList((cursor) => (canManage ? call(api.GET('/v1/tokens', { params: { query: { cursor, limit: 25 } } })) : emptyPage<ApiKey>()), String(canManage));
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<string>>(new Set(['qr:read', 'qr:write']));
  const [environment, setEnvironment] = useState<'live' | 'test'>('live');
  const [days, setDays] = useState('');
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);

  if (!canManage) {
    return (
      <>
        <PageHeader title="API keys" />
        <p>Only admins and owners manage API keys.</p>
      </>
    );
  }

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const body = { name, scopes: [...scopes], environment, ...(days.trim() && { expires_in_days: /^\d+$/.test(days.trim()) ? Number(days.trim()) : days }) };
      const key = await rawJson<{ name: string; key: string }>('/v1/tokens', { method: 'POST', json: body });
      setCreated({ name: key.name, key: key.key });
      setName('');
      list.reload();
    } catch (err) {
      setErrors(fieldErrors(err, ['name', 'scopes', 'environment', 'expires_in_days']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="API keys" />
      {created && (
        <section className="secret-box" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key “{created.name}”</h2>
          <p>Copy it now: it is shown only once.</p>
          <p className="secret" data-testid="new-api-key">
            {created.key}
          </p>
          <div className="actions">
            <button
              type="button"
              className="button"
              onClick={() =>
                navigator.clipboard.writeText(created.key).then(
                  () => toast('Key copied'),
                  () => toast('Copying failed: select the key and copy it', 'error'),
                )
              }
            >
              Copy the key
            </button>
            <button type="button" className="button secondary" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </section>
      )}
      <form onSubmit={create} noValidate>
        <h2>Create a key</h2>
        <FormError message={errors.general} />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.fields.name} required />
        <fieldset aria-describedby={errors.fields.scopes ? 'scopes-error' : undefined}>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <CheckboxField
              key={s}
              label={s}
              checked={scopes.has(s)}
              onChange={(e) => {
                const next = new Set(scopes);
                if (e.target.checked) next.add(s);
                else next.delete(s);
                setScopes(next);
              }}
            />
          ))}
          {errors.fields.scopes && (
            <p id="scopes-error" className="field-error">
              {errors.fields.scopes}
            </p>
          )}
        </fieldset>
        <SelectField
          label="Environment"
          value={environment}
          onChange={(e) => setEnvironment(e.target.value as 'live' | 'test')}
          options={[
            { value: 'live', label: 'Live' },
            { value: 'test', label: 'Test (separate test data)' },
          ]}
          error={errors.fields.environment}
        />
        <TextField label="Expires after (days)" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} hint="Empty: never" error={errors.fields.expires_in_days} />
        <button type="submit" className="button" disabled={busy}>
          Create the key
        </button>
      </form>
      <h2>Keys</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && list.items.length === 0 ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>No keys yet.</Empty>
      ) : (
        <DataTable
          caption="API keys"
          rows={list.items}
          rowId={(k) => k.id}
          columns={[
            { key: 'name', header: 'Name', render: (k) => k.name },
            { key: 'prefix', header: 'Key', render: (k) => <code>{k.key_prefix}…</code> },
            { key: 'scopes', header: 'Scopes', render: (k) => k.scopes.join(', ') },
            { key: 'env', header: 'Environment', render: (k) => k.environment },
            { key: 'used', header: 'Last used', render: (k) => (k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'Never') },
            {
              key: 'actions',
              header: 'Actions',
              render: (k) =>
                k.revoked_at ? (
                  'Revoked'
                ) : (
                  <button type="button" className="button secondary" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      )}
      <Pager list={list} label="API keys" />
      <ConfirmDialog
        isOpen={revoking !== null}
        onOpenChange={(o) => !o && setRevoking(null)}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke"
        destructive
        onConfirm={async () => {
          try {
            await rawJson(`/v1/tokens/${revoking!.id}`, { method: 'DELETE' });
            toast('Key revoked');
            list.reload();
          } catch (err) {
            toast(asApiError(err).message, 'error');
          }
        }}
      >
        <p>Integrations using this key stop working at once.</p>
      </ConfirmDialog>
    </>
  );
}
