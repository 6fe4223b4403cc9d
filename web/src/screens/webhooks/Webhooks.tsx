import { useState } from 'react';
import { Link } from 'react-router';
import { api, call, type Schemas } from '../../api/client';
import { fieldErrors } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { CopyButton } from '../../components/CopyButton';
import { PagedTable } from '../../components/DataTable';
import { CheckboxField, FormError, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { EVENT_TYPES, type EventType } from './events';
import { StatusBadge } from './StatusBadge';
import '../../components/settings-screens.css';

type Errors = { fields: Record<string, string>; general?: string };
type Created = Schemas['CreatedWebhookEndpointDto'];

/** Webhook endpoints: the list, and a form to add one (the signing secret is shown once, with a copy button). */
export default function Webhooks() {
  const { canManage } = useSession();
  const toast = useToast();
  const list = usePagedList((cursor) => call(api.GET('/v1/webhooks', { params: { query: { cursor, limit: 25 } } })), '');
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [events, setEvents] = useState<Set<EventType>>(new Set());
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);

  const create = async () => {
    setBusy(true);
    try {
      const body = { url, events: all ? ['*' as const] : [...events], ...(description ? { description } : {}) };
      const endpoint = await call(api.POST('/v1/webhooks', { body }));
      setCreated(endpoint);
      setUrl('');
      setDescription('');
      setErrors({ fields: {} });
      toast('Webhook endpoint created');
      list.reset();
      list.reload();
    } catch (err) {
      setErrors(fieldErrors(err, ['url', 'events', 'description']));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="Webhooks" />
      <p className="hint">Endpoints receive a signed HTTP POST for each event they subscribe to. Failed deliveries are retried.</p>
      {created && (
        <section className="callout" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Signing secret of {created.url}</h2>
          <p>Copy it now: it is shown only once. Use it to check the signature of each delivery.</p>
          <p className="secret" aria-label="Signing secret">
            {created.secret}
          </p>
          <div className="actions">
            <CopyButton value={created.secret} label="Copy signing secret" />
            <Link className="button secondary" to={`/webhooks/${created.id}`}>
              Open endpoint
            </Link>
            <button type="button" className="button secondary" onClick={() => setCreated(null)}>
              I have stored it
            </button>
          </div>
        </section>
      )}
      {canManage ? (
        <form
          aria-label="New webhook endpoint"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <h2>New endpoint</h2>
          <FormError message={errors.general} />
          <TextField label="Endpoint URL" name="url" type="url" required placeholder="https://example.com/webhooks/scanlink" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.fields.url} />
          <TextField label="Description (optional)" name="description" value={description} onChange={(e) => setDescription(e.target.value)} error={errors.fields.description} />
          <fieldset aria-describedby={errors.fields.events ? 'events-error' : undefined}>
            <legend>Events</legend>
            <CheckboxField label="Every event type" checked={all} onChange={(e) => setAll(e.target.checked)} />
            {!all &&
              EVENT_TYPES.map((t) => (
                <CheckboxField
                  key={t}
                  label={t}
                  checked={events.has(t)}
                  onChange={(e) => {
                    const next = new Set(events);
                    if (e.target.checked) next.add(t);
                    else next.delete(t);
                    setEvents(next);
                  }}
                />
              ))}
            {errors.fields.events && (
              <p id="events-error" className="field-error">
                {errors.fields.events}
              </p>
            )}
          </fieldset>
          <button type="submit" className="button" disabled={busy}>
            Create endpoint
          </button>
        </form>
      ) : (
        <p className="hint">Only admins and owners manage webhook endpoints.</p>
      )}
      <h2>Endpoints</h2>
      <PagedTable
        list={list}
        label="Webhook endpoints"
        empty="No webhook endpoints yet."
        caption="Webhook endpoints"
        rowId={(w) => w.id}
        columns={[
          { key: 'url', header: 'URL', render: (w) => <Link to={`/webhooks/${w.id}`}>{w.url}</Link> },
          { key: 'status', header: 'Status', render: (w) => <StatusBadge status={w.status} reason={w.disabled_reason} /> },
          { key: 'events', header: 'Events', render: (w) => w.events.join(', ') },
          { key: 'description', header: 'Description', render: (w) => w.description ?? '' },
          { key: 'failures', header: 'Failures in a row', render: (w) => String(w.consecutive_failures) },
        ]}
      />
    </>
  );
}
