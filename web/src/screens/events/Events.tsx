import { useEffect, useRef, useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { useLoad, usePagedList } from '../../api/paging';
import { DataTable } from '../../components/DataTable';
import { SelectField } from '../../components/FormField';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import '../../components/settings-screens.css';

type EventType = Schemas['EventDto']['type'];
const TYPES: EventType[] = ['qr.created', 'qr.updated', 'qr.deleted', 'qr.restored', 'qr.scanned', 'batch.completed', 'batch.failed', 'lead.captured', 'ping'];

/** What an event is about, in a few words (the code's name, the batch, the endpoint pinged). */
function subject(data: Record<string, unknown>): string {
  const name = typeof data.name === 'string' && data.name ? data.name : undefined;
  const id = typeof data.id === 'string' ? data.id : typeof data.qr_code_id === 'string' ? data.qr_code_id : typeof data.webhook_endpoint_id === 'string' ? data.webhook_endpoint_id : undefined;
  return [name, id].filter(Boolean).join(' · ');
}

/** The event archive: what happened in the last 30 days, newest first, one page at a time, filtered by type. */
export default function Events() {
  const [type, setType] = useState<'' | EventType>('');
  const list = usePagedList((cursor) => call(api.GET('/v1/events', { params: { query: { cursor, limit: 25, ...(type ? { type } : {}) } } })), type);
  const [openId, setOpenId] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Events" />
      <p className="hint">Every event sent to webhooks is kept here for 30 days. The archive only lists events; it does not send them again.</p>
      <div className="filters">
        <SelectField label="Event type" value={type} onChange={(e) => setType(e.target.value as '' | EventType)} options={[{ value: '', label: 'Every type' }, ...TYPES.map((t) => ({ value: t, label: t }))]} />
      </div>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && !list.items.length ? (
        <Loading />
      ) : !list.items.length ? (
        <Empty>No {type ? `${type} ` : ''}events in the last 30 days.</Empty>
      ) : (
        <DataTable
          caption="Events"
          rows={list.items}
          rowId={(e) => e.id}
          columns={[
            { key: 'time', header: 'Time', render: (e) => new Date(e.created_at).toLocaleString() },
            { key: 'type', header: 'Type', render: (e) => e.type },
            { key: 'subject', header: 'About', render: (e) => subject(e.data as Record<string, unknown>) },
            {
              key: 'json',
              header: 'Detail',
              render: (e) => (
                <button type="button" className="button secondary" aria-label={`Show JSON of ${e.id}`} aria-pressed={openId === e.id} onClick={() => setOpenId(openId === e.id ? null : e.id)}>
                  Show JSON
                </button>
              ),
            },
          ]}
        />
      )}
      <Pager list={list} label="Events" />
      {openId && <EventDetail id={openId} onClose={() => setOpenId(null)} />}
    </>
  );
}

function EventDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const event = useLoad(() => call(api.GET('/v1/events/{id}', { params: { path: { id } } })), [id]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (event.data) heading.current?.focus();
  }, [event.data]);
  return (
    <section aria-labelledby="event-detail" className="callout">
      <h2 id="event-detail" tabIndex={-1} ref={heading}>
        Event {id}
      </h2>
      {event.error ? <ErrorState error={event.error} onRetry={event.reload} /> : !event.data ? <Loading /> : <pre className="json" tabIndex={0} aria-label={`JSON of ${id}`}>{JSON.stringify(event.data, null, 2)}</pre>}
      <button type="button" className="button secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
