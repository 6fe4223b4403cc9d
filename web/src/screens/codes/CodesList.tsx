import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, call, rawJson, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { useLoad, usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { SelectField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { useFolders } from './FolderSelect';
import { TARGET_TYPES, TYPE_LABELS } from './target-fields';

type QrCode = Schemas['QrCodeDto'];
type Status = 'all' | 'active' | 'inactive' | 'paused' | 'trashed';

const STATUSES: ReadonlyArray<{ value: Status; label: string }> = [
  { value: 'all', label: 'All live codes' },
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Paused by you' },
  { value: 'paused', label: 'Paused by the plan' },
  { value: 'trashed', label: 'In the Trash' },
];

/**
 * The workspace's codes, one page (25) at a time by cursor, with search and filters kept in the address (so a filtered
 * view can be bookmarked), row selection and bulk move / tag / pause / trash over the selected rows.
 */
export default function CodesList() {
  const { canEdit } = useSession();
  const toast = useToast();
  const folders = useFolders();
  // The tag filter offers the workspace's tags (by name, the first 100); a tag from the address is kept even if absent.
  const tags = useLoad(() => call(api.GET('/v1/tags', { params: { query: { limit: 100 } } })), []);
  const [params, setParams] = useSearchParams();
  const filters = {
    search: params.get('search') ?? '',
    folder_id: params.get('folder') ?? '',
    tag: params.get('tag') ?? '',
    status: (params.get('status') ?? 'all') as Status,
    type: params.get('type') ?? '',
    kind: (params.get('kind') ?? 'all') as 'all' | 'dynamic' | 'static',
  };
  const [searchText, setSearchText] = useState(filters.search);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkFolder, setBulkFolder] = useState('');
  const [bulkTag, setBulkTag] = useState('');
  const [confirmTrash, setConfirmTrash] = useState(false);
  const [busy, setBusy] = useState(false);

  const key = JSON.stringify(filters);
  const list = usePagedList(
    (cursor) =>
      call(
        api.GET('/v1/qr-codes', {
          params: {
            query: {
              cursor,
              limit: 25,
              status: filters.status,
              kind: filters.kind,
              ...(filters.search && { search: filters.search }),
              ...(filters.folder_id && { folder_id: filters.folder_id }),
              ...(filters.tag && { tag: filters.tag }),
              ...(filters.type && { type: filters.type }),
            },
          },
        }),
      ),
    key,
  );

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value && value !== 'all') next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
    setSelected(new Set());
  };

  /** Runs one change per selected code, then reports how many worked (and the first error). */
  /** `change` answers false when the code needs no change (it already has the tag): not counted as changed. */
  const bulk = async (what: string, change: (c: QrCode) => Promise<unknown>) => {
    setBusy(true);
    const rows = list.items.filter((c) => selected.has(c.id));
    let ok = 0;
    let firstError: string | undefined;
    for (const c of rows) {
      try {
        if ((await change(c)) !== false) ok++;
      } catch (err) {
        firstError ??= `${c.name}: ${asApiError(err).message}`;
      }
    }
    setBusy(false);
    setSelected(new Set());
    toast(`${what}: ${ok} of ${rows.length} codes`, firstError ? 'error' : 'success');
    if (firstError) toast(firstError, 'error');
    list.reload();
    tags.reload();
  };
  const patch = (c: QrCode, body: Record<string, unknown>) => rawJson(`/v1/qr-codes/${c.id}`, { method: 'PATCH', json: body });

  return (
    <>
      <PageHeader
        title="QR codes"
        actions={
          canEdit ? (
            <Link className="button" to="/codes/new">
              Create a code
            </Link>
          ) : (
            <span className="hint">Viewers cannot create codes</span>
          )
        }
      />
      <form
        className="filters"
        role="search"
        aria-label="Filter codes"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter('search', searchText.trim());
        }}
      >
        <TextField label="Search names" type="search" value={searchText} onChange={(e) => setSearchText(e.target.value)} />
        <button type="submit" className="button secondary">
          Search
        </button>
        <SelectField label="Folder" value={filters.folder_id} onChange={(e) => setFilter('folder', e.target.value)} options={[{ value: '', label: 'Any folder' }, ...folders.map((f) => ({ value: f.id, label: f.name }))]} />
        <SelectField
          label="Tag"
          value={filters.tag}
          onChange={(e) => setFilter('tag', e.target.value)}
          options={[
            { value: '', label: 'Any tag' },
            ...(filters.tag && !tags.data?.data.some((t) => t.name === filters.tag) ? [{ value: filters.tag, label: filters.tag }] : []),
            ...(tags.data?.data ?? []).map((t) => ({ value: t.name, label: `${t.name} (${t.qr_code_count})` })),
          ]}
        />
        <SelectField label="Status" value={filters.status} onChange={(e) => setFilter('status', e.target.value)} options={STATUSES} />
        <SelectField label="Type" value={filters.type} onChange={(e) => setFilter('type', e.target.value)} options={[{ value: '', label: 'Any type' }, ...TARGET_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))]} />
        <SelectField
          label="Kind"
          value={filters.kind}
          onChange={(e) => setFilter('kind', e.target.value)}
          options={[
            { value: 'all', label: 'Dynamic and static' },
            { value: 'dynamic', label: 'Dynamic' },
            { value: 'static', label: 'Static' },
          ]}
        />
      </form>

      {canEdit && selected.size > 0 && (
        <div className="bulkbar" role="region" aria-label="Bulk actions">
          <span>{selected.size} selected</span>
          {filters.status === 'trashed' || filters.status === 'paused' ? (
            <button type="button" className="button" disabled={busy} onClick={() => bulk('Restored', (c) => rawJson(`/v1/qr-codes/${c.id}/restore`, { method: 'POST' }))}>
              Restore
            </button>
          ) : (
            <>
              <SelectField label="Move to folder" value={bulkFolder} onChange={(e) => setBulkFolder(e.target.value)} options={[{ value: '', label: 'No folder' }, ...folders.map((f) => ({ value: f.id, label: f.name }))]} />
              <button type="button" className="button secondary" disabled={busy} onClick={() => bulk('Moved', (c) => patch(c, { folder_id: bulkFolder || null }))}>
                Move
              </button>
              <TextField label="Add tag" value={bulkTag} onChange={(e) => setBulkTag(e.target.value)} />
              <button type="button" className="button secondary" disabled={busy || !bulkTag.trim()} onClick={() => bulk('Tagged', async (c) => (c.tags.includes(bulkTag.trim()) ? false : patch(c, { tags: [...c.tags, bulkTag.trim()] })))}>
                Tag
              </button>
              <button type="button" className="button secondary" disabled={busy} onClick={() => bulk('Paused', (c) => patch(c, { is_active: false }))}>
                Pause
              </button>
              <button type="button" className="button danger" disabled={busy} onClick={() => setConfirmTrash(true)}>
                Move to Trash
              </button>
            </>
          )}
        </div>
      )}
      <ConfirmDialog isOpen={confirmTrash} onOpenChange={setConfirmTrash} title={`Move ${selected.size} codes to the Trash?`} confirmLabel="Move to Trash" destructive onConfirm={() => bulk('Moved to the Trash', (c) => rawJson(`/v1/qr-codes/${c.id}`, { method: 'DELETE' }))}>
        <p>Their scans stop working at once. They can be restored from the Trash for 30 days.</p>
      </ConfirmDialog>

      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && list.items.length === 0 ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty action={canEdit && filters.status !== 'trashed' ? <Link to="/codes/new">Create a code</Link> : undefined}>{key === JSON.stringify({ search: '', folder_id: '', tag: '', status: 'all', type: '', kind: 'all' }) ? 'No codes yet.' : 'No code matches these filters.'}</Empty>
      ) : (
        <DataTable
          caption="QR codes"
          rows={list.items}
          rowId={(c) => c.id}
          rowLabel={(c) => c.name}
          selected={canEdit ? selected : undefined}
          onSelectedChange={canEdit ? setSelected : undefined}
          columns={[
            // A trashed or paused code has no page (the API answers 404 until it is restored): its name is plain text.
            { key: 'name', header: 'Name', render: (c) => (c.deleted_at ? c.name : <Link to={`/codes/${c.id}`}>{c.name}</Link>) },
            { key: 'type', header: 'Type', render: (c) => TYPE_LABELS[c.type] ?? c.type },
            { key: 'status', header: 'Status', render: (c) => (c.deleted_at ? (filters.status === 'paused' ? 'Paused by the plan' : 'Trashed') : c.kind === 'static' ? 'Static' : c.is_active ? 'Active' : 'Paused') },
            { key: 'scans', header: 'Scans', render: (c) => c.scan_count ?? '—' },
            { key: 'tags', header: 'Tags', render: (c) => c.tags.join(', ') },
            { key: 'created', header: 'Created', render: (c) => new Date(c.created_at).toLocaleDateString() },
          ]}
        />
      )}
      <Pager list={list} label="QR codes" />
    </>
  );
}
