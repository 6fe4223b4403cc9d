import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, call, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { useLoad, usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { PagedTable } from '../../components/DataTable';
import { SelectField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { ErrorState, Loading, PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { StatusBadge } from './StatusBadge';
import '../../components/settings-screens.css';

type Delivery = Schemas['WebhookDeliveryDto'];
type DeliveryStatus = Delivery['status'];

/** One webhook endpoint: enable/disable, test ping, rotate secret, delete, and its recent deliveries. */
export default function WebhookDetail() {
  const { id = '' } = useParams();
  const { canManage } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const endpoint = useLoad(() => call(api.GET('/v1/webhooks/{id}', { params: { path: { id } } })), [id]);
  const [status, setStatus] = useState<'' | DeliveryStatus>('');
  const deliveries = usePagedList(
    (cursor) => call(api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { cursor, limit: 25, ...(status ? { status } : {}) } } })),
    `${id}|${status}`,
  );
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [secret, setSecret] = useState<Schemas['WebhookSecretDto'] | null>(null);

  if (endpoint.error) return <><PageHeader title="Webhook endpoint" /><ErrorState error={endpoint.error} onRetry={endpoint.reload} /></>;
  if (!endpoint.data) return <><PageHeader title="Webhook endpoint" /><Loading /></>;
  const w = endpoint.data;

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    try {
      await what();
    } catch (err) {
      toast(asApiError(err).message, 'error');
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader
        title="Webhook endpoint"
        actions={
          canManage && (
            <>
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() =>
                  act(async () => {
                    const d = await call(api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } }));
                    toast(`Test ping sent: ${d.status}`);
                    deliveries.reset();
                    deliveries.reload();
                  })
                }
              >
                Send test ping
              </button>
              <button
                type="button"
                className="button secondary"
                disabled={busy}
                onClick={() =>
                  act(async () => {
                    const next = w.status === 'enabled' ? 'disabled' : 'enabled';
                    endpoint.setData(await call(api.PATCH('/v1/webhooks/{id}', { params: { path: { id } }, body: { status: next } })));
                    toast(next === 'enabled' ? 'Endpoint enabled' : 'Endpoint disabled');
                  })
                }
              >
                {w.status === 'enabled' ? 'Disable' : 'Enable'}
              </button>
              <button type="button" className="button secondary" disabled={busy} onClick={() => setConfirm('rotate')}>
                Rotate secret
              </button>
              <button type="button" className="button danger" disabled={busy} onClick={() => setConfirm('delete')}>
                Delete
              </button>
            </>
          )
        }
      />
      <p>
        <Link to="/webhooks">All webhook endpoints</Link>
      </p>
      <dl className="props">
        <dt>URL</dt>
        <dd className="secret">{w.url}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={w.status} reason={w.disabled_reason} />
        </dd>
        <dt>Events</dt>
        <dd>{w.events.join(', ')}</dd>
        {w.description && (
          <>
            <dt>Description</dt>
            <dd>{w.description}</dd>
          </>
        )}
        <dt>Failed attempts in a row</dt>
        <dd>{w.consecutive_failures}</dd>
        <dt>Id</dt>
        <dd>
          <code>{w.id}</code>
        </dd>
      </dl>
      {secret && (
        <section className="callout" aria-labelledby="new-secret">
          <h2 id="new-secret">New signing secret</h2>
          <p>
            Copy it now: it is shown only once. The previous secret keeps signing deliveries until{' '}
            {secret.previous_secret_expires_at ? new Date(secret.previous_secret_expires_at).toLocaleString() : 'now'}.
          </p>
          <p className="secret" aria-label="Signing secret">
            {secret.secret}
          </p>
          <div className="actions">
            <CopyButton value={secret.secret} label="Copy signing secret" />
            <button type="button" className="button secondary" onClick={() => setSecret(null)}>
              I have stored it
            </button>
          </div>
        </section>
      )}
      <h2>Recent deliveries</h2>
      <div className="filters">
        <SelectField
          label="Delivery status"
          value={status}
          onChange={(e) => setStatus(e.target.value as '' | DeliveryStatus)}
          options={[
            { value: '', label: 'Any' },
            { value: 'pending', label: 'Pending' },
            { value: 'retrying', label: 'Retrying' },
            { value: 'succeeded', label: 'Succeeded' },
            { value: 'failed', label: 'Failed' },
          ]}
        />
        <button type="button" className="button secondary" onClick={deliveries.reload}>
          Refresh deliveries
        </button>
      </div>
      <PagedTable
        list={deliveries}
        label="Deliveries"
        empty={<>No deliveries{status ? ` with status ${status}` : ''} in the last 30 days.</>}
        caption="Deliveries"
        rowId={(d) => d.id}
        columns={[
          { key: 'created', header: 'Time', render: (d) => new Date(d.created_at).toLocaleString() },
          { key: 'type', header: 'Event', render: (d) => d.event_type },
          { key: 'status', header: 'Status', render: (d) => <span className={`badge badge-${d.status}`}>{d.status}</span> },
          { key: 'code', header: 'HTTP status', render: (d) => (d.status_code ? String(d.status_code) : '—') },
          { key: 'attempts', header: 'Attempts', render: (d) => String(d.attempts) },
          { key: 'latency', header: 'Latency', render: (d) => (d.latency_ms != null ? `${d.latency_ms} ms` : '—') },
          {
            key: 'detail',
            header: 'Detail',
            render: (d) => (
              <details>
                <summary>Response of {d.id}</summary>
                {d.error && <p className="field-error">{d.error}</p>}
                {d.next_attempt_at && <p>Next attempt: {new Date(d.next_attempt_at).toLocaleString()}</p>}
                <pre className="json">{d.response_body || '(empty body)'}</pre>
              </details>
            ),
          },
        ]}
      />
      <ConfirmDialog
        isOpen={confirm === 'rotate'}
        onOpenChange={(o) => !o && setConfirm(null)}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onConfirm={() =>
          act(async () => {
            setSecret(await call(api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } } })));
            toast('Secret rotated');
          })
        }
      >
        <p>A new secret signs deliveries from now on; the previous one stays valid for a while so you can update your receiver.</p>
      </ConfirmDialog>
      <ConfirmDialog
        isOpen={confirm === 'delete'}
        onOpenChange={(o) => !o && setConfirm(null)}
        title="Delete this webhook endpoint?"
        confirmLabel="Delete endpoint"
        destructive
        onConfirm={() =>
          act(async () => {
            await call(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } }));
            toast('Webhook endpoint deleted');
            void navigate('/webhooks');
          })
        }
      >
        <p>{w.url} will receive no more events. Pending retries stop.</p>
      </ConfirmDialog>
    </>
  );
}
