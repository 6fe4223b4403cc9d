import { useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { FormError, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';
import '../../components/settings-screens.css';

type Domain = Schemas['DomainDto'];
type Errors = { fields: Record<string, string>; general?: string };

const STATUS_LABEL: Record<Domain['status'], string> = { pending: 'Pending verification', verified: 'Verified', failed: 'Verification failed' };

/**
 * Custom domains: add a hostname, create the TXT record shown (name and value with copy buttons), verify, make one the
 * primary domain of new codes, delete.
 */
export default function Domains() {
  // Domains are changed with the qr:write scope: editors, admins and owners.
  const { canManage } = useSession();
  const toast = useToast();
  const list = usePagedList((cursor) => call(api.GET('/v1/domains', { params: { query: { cursor, limit: 25 } } })), '');
  const [hostname, setHostname] = useState('');
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Domain | null>(null);

  const add = async () => {
    setBusy('add');
    try {
      const d = await call(api.POST('/v1/domains', { body: { hostname } }));
      setHostname('');
      setErrors({ fields: {} });
      toast(`${d.hostname} added: create its TXT record, then verify`);
      list.reset();
      list.reload();
    } catch (err) {
      setErrors(fieldErrors(err, ['hostname']));
    } finally {
      setBusy(null);
    }
  };

  const act = async (id: string, what: () => Promise<void>) => {
    setBusy(id);
    try {
      await what();
      list.reload();
    } catch (err) {
      toast(asApiError(err).message, 'error');
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <PageHeader title="Domains" />
      <p className="hint">
        Serve your codes' short links from your own host name (for example <code>go.example.com</code>). Point the host name at the scan service, prove you own it
        with a DNS TXT record, then verify.
      </p>
      {canManage ? (
        <form
          aria-label="Add a domain"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <h2>Add a domain</h2>
          <FormError message={errors.general} />
          <TextField label="Host name" name="hostname" required placeholder="go.example.com" value={hostname} onChange={(e) => setHostname(e.target.value)} error={errors.fields.hostname} />
          <button type="submit" className="button" disabled={busy === 'add'}>
            Add domain
          </button>
        </form>
      ) : (
        <p className="hint">Your role can view domains but not change them.</p>
      )}
      <h2>Your domains</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && !list.items.length ? (
        <Loading />
      ) : !list.items.length ? (
        <Empty>No custom domains yet.</Empty>
      ) : (
        <ul className="cards" aria-label="Domains">
          {list.items.map((d) => (
            <li key={d.id} className="card">
              <h3>{d.hostname}</h3>
              <p>
                <span className={`badge badge-${d.status}`}>{STATUS_LABEL[d.status]}</span> {d.primary && <span className="badge">Primary</span>}
              </p>
              {d.status !== 'verified' && (
                <>
                  <p>Create this DNS record at your DNS provider:</p>
                  <div className="dns-record" role="group" aria-label={`DNS record for ${d.hostname}`}>
                    <span>Type</span>
                    <code>{d.verification.type}</code>
                    <span />
                    <span>Name</span>
                    <code>{d.verification.name}</code>
                    <CopyButton value={d.verification.name} label={`Copy record name`} />
                    <span>Value</span>
                    <code>{d.verification.value}</code>
                    <CopyButton value={d.verification.value} label={`Copy record value`} />
                  </div>
                </>
              )}
              {d.verification.last_error && d.status !== 'verified' && (
                <p className="field-error">
                  Last check: {d.verification.last_error === 'taken' ? 'another workspace verified this host name first' : d.verification.last_error}
                  {d.verification.last_checked_at ? ` (${new Date(d.verification.last_checked_at).toLocaleString()})` : ''}
                </p>
              )}
              {d.verified_at && <p className="hint">Verified {new Date(d.verified_at).toLocaleString()}</p>}
              {canManage && (
                <div className="actions">
                  {d.status !== 'verified' && (
                    <button
                      type="button"
                      className="button"
                      disabled={busy === d.id}
                      aria-label={`Verify ${d.hostname}`}
                      onClick={() =>
                        act(d.id, async () => {
                          const v = await call(api.POST('/v1/domains/{id}/verify', { params: { path: { id: d.id } } }));
                          toast(v.status === 'verified' ? `${v.hostname} is verified` : `${v.hostname}: the TXT record was not found yet${v.verification.last_error ? ` (${v.verification.last_error})` : ''}`, v.status === 'verified' ? 'success' : 'info');
                        })
                      }
                    >
                      Verify
                    </button>
                  )}
                  {d.status === 'verified' && (
                    <button
                      type="button"
                      className="button secondary"
                      disabled={busy === d.id}
                      aria-label={d.primary ? `Stop using ${d.hostname} by default` : `Make ${d.hostname} the primary domain`}
                      onClick={() =>
                        act(d.id, async () => {
                          await call(api.PATCH('/v1/domains/{id}', { params: { path: { id: d.id } }, body: { primary: !d.primary } }));
                          toast(d.primary ? `${d.hostname} is no longer the primary domain` : `New codes use ${d.hostname}`);
                        })
                      }
                    >
                      {d.primary ? 'Unset primary' : 'Make primary'}
                    </button>
                  )}
                  <button type="button" className="button danger" aria-label={`Delete ${d.hostname}`} onClick={() => setDeleting(d)}>
                    Delete
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager list={list} label="Domains" />
      <ConfirmDialog
        isOpen={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete ${deleting?.hostname ?? ''}?`}
        confirmLabel="Delete domain"
        destructive
        onConfirm={() => (deleting ? act(deleting.id, async () => {
          await call(api.DELETE('/v1/domains/{id}', { params: { path: { id: deleting.id } } }));
          toast(`${deleting.hostname} deleted`);
        }) : undefined)}
      >
        <p>A domain that live or trashed codes use cannot be deleted.</p>
      </ConfirmDialog>
    </>
  );
}
