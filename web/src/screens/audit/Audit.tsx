import { useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { emptyPage, usePagedList } from '../../api/paging';
import { PagedTable } from '../../components/DataTable';
import { TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { PageHeader } from '../../components/States';
import '../../components/settings-screens.css';

interface Filters {
  resource_id: string;
  actor_id: string;
  action: string;
  from: string;
  to: string;
}
const EMPTY: Filters = { resource_id: '', actor_id: '', action: '', from: '', to: '' };

/** A date input's day as the start (or end) of that day in the browser's time zone, as an ISO timestamp. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function change(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The audit log: who changed what and when, newest first, filtered by resource, actor, action and dates. */
export default function Audit() {
  const { canManage } = useSession();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const list = usePagedList((cursor) => {
    const query = {
      cursor,
      limit: 25,
      ...(filters.resource_id ? { resource_id: filters.resource_id.trim() } : {}),
      ...(filters.actor_id ? { actor_id: filters.actor_id.trim() } : {}),
      ...(filters.action ? { action: filters.action.trim() } : {}),
      ...(dayBound(filters.from, false) ? { from: dayBound(filters.from, false) } : {}),
      ...(dayBound(filters.to, true) ? { to: dayBound(filters.to, true) } : {}),
    };
    // Editors and viewers are told what they cannot do; nothing is requested for them (the API would answer 403).
    return canManage ? call(api.GET('/v1/audit-log', { params: { query } })) : emptyPage<Schemas['AuditEntryDto']>();
  }, JSON.stringify(filters) + String(canManage));
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const filterRefused = list.error?.status === 400 && (Object.keys(EMPTY) as string[]).includes(list.error.field ?? '');

  return (
    <>
      <PageHeader title="Audit log" />
      <p className="hint">Every change made through the API, the dashboard, the MCP server or the command line, kept 365 days.{!canManage && ' Only admins and owners can read it.'}</p>
      {canManage && (
        <>
      <form
        className="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <TextField label="Resource id" name="resource_id" placeholder="qr_…" value={draft.resource_id} onChange={set('resource_id')} error={list.error?.field === 'resource_id' ? list.error.message : undefined} />
        <TextField label="Actor id" name="actor_id" placeholder="usr_… or key_…" value={draft.actor_id} onChange={set('actor_id')} error={list.error?.field === 'actor_id' ? list.error.message : undefined} />
        <TextField label="Action" name="action" placeholder="qr_code.updated" value={draft.action} onChange={set('action')} error={list.error?.field === 'action' ? list.error.message : undefined} />
        <TextField label="From" name="from" type="date" value={draft.from} onChange={set('from')} error={list.error?.field === 'from' ? list.error.message : undefined} />
        <TextField label="To" name="to" type="date" value={draft.to} onChange={set('to')} error={list.error?.field === 'to' ? list.error.message : undefined} />
        <div className="actions">
          <button type="submit" className="button">
            Apply filters
          </button>
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              setDraft(EMPTY);
              setFilters(EMPTY);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <PagedTable
        // A refused filter is said at its field (above); the table then shows no stale rows and no page-level failure.
        list={filterRefused ? { ...list, error: null, items: [] } : list}
        label="Audit log"
        empty={filterRefused ? 'Correct the filter marked above to see entries.' : 'No audit entries match.'}
        caption="Audit log entries"
        rowId={(a) => a.id}
        columns={[
          { key: 'time', header: 'Time', render: (a) => new Date(a.created_at).toLocaleString() },
          { key: 'actor', header: 'Actor', render: (a) => <>{a.actor.email ?? a.actor.type}<div className="hint">{a.actor.id}</div></> },
          { key: 'action', header: 'Action', render: (a) => <code>{a.action}</code> },
          { key: 'resource', header: 'Resource', render: (a) => <>{a.resource.type}<div className="hint">{a.resource.id}</div></> },
          {
            key: 'changes',
            header: 'Changes',
            render: (a) => {
              const entries = Object.entries((a.changes ?? {}) as Record<string, unknown>);
              if (!entries.length) return '—';
              return (
                <ul className="changes">
                  {entries.map(([field, v]) => (
                    <li key={field}>
                      <strong>{field}</strong>: {Array.isArray(v) && v.length === 2 ? `${change(v[0])} → ${change(v[1])}` : change(v)}
                    </li>
                  ))}
                </ul>
              );
            },
          },
          { key: 'request', header: 'Request', render: (a) => <span className="hint">{a.request_id}</span> },
        ]}
      />
        </>
      )}
    </>
  );
}
