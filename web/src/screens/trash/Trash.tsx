import { useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';
import '../../components/settings-screens.css';

type Code = Schemas['QrCodeDto'];

/** Days a trashed code is kept before it is deleted for good (the service's default retention). */
const RETENTION_DAYS = 30;

/**
 * The Trash: codes moved there (`status=trashed`, newest trashed first, one page at a time). Restoring keeps a code's id
 * and short link. Codes are deleted for good 30 days after they were trashed.
 */
export default function Trash() {
  const { canEdit } = useSession();
  const toast = useToast();
  const list = usePagedList(
    (cursor) => call(api.GET('/v1/qr-codes', { params: { query: { cursor, limit: 25, status: 'trashed', sort: 'deleted_at', order: 'desc' } } })),
    'trash',
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirming, setConfirming] = useState<Code[] | null>(null);
  const [busy, setBusy] = useState(false);

  const restore = async (codes: Code[]) => {
    setBusy(true);
    let done = 0;
    const failures: string[] = [];
    for (const c of codes) {
      try {
        await call(api.POST('/v1/qr-codes/{id}/restore', { params: { path: { id: c.id } } }));
        done++;
      } catch (err) {
        failures.push(`${c.name || c.id}: ${asApiError(err).message}`);
      }
    }
    setBusy(false);
    setSelected(new Set());
    if (done) toast(done === 1 && codes.length === 1 ? `“${codes[0].name || codes[0].id}” restored` : `${done} code(s) restored`);
    if (failures.length) toast(`Not restored — ${failures.join('; ')}`, 'error');
    list.reload();
  };

  const chosen = list.items.filter((c) => selected.has(c.id));
  return (
    <>
      <PageHeader title="Trash" />
      <p className="hint">
        Trashed codes no longer scan. Restore one to bring it back with the same short link. Codes are deleted for good {RETENTION_DAYS} days after they were
        trashed (the operator can empty the Trash sooner).
      </p>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && !list.items.length ? (
        <Loading />
      ) : !list.items.length ? (
        <Empty>The Trash is empty.</Empty>
      ) : (
        <>
          {canEdit && (
            <div className="bulkbar" role="group" aria-label="Selected codes">
              <span>{chosen.length} selected</span>
              <button type="button" className="button" disabled={!chosen.length || busy} onClick={() => setConfirming(chosen)}>
                Restore selected
              </button>
            </div>
          )}
          <DataTable
            caption="Trashed codes"
            rows={list.items}
            rowId={(c) => c.id}
            rowLabel={(c) => c.name || c.id}
            selected={canEdit ? selected : undefined}
            onSelectedChange={canEdit ? setSelected : undefined}
            columns={[
              { key: 'name', header: 'Name', render: (c) => c.name || <span className="hint">(no name)</span> },
              { key: 'type', header: 'Type', render: (c) => `${c.target?.type ?? ''} · ${c.type}` },
              { key: 'link', header: 'Short link', render: (c) => c.short_url ?? '—' },
              { key: 'trashed', header: 'Trashed', render: (c) => (c.deleted_at ? new Date(c.deleted_at).toLocaleString() : '') },
              {
                key: 'purge',
                header: 'Deleted for good',
                render: (c) => (c.deleted_at ? new Date(new Date(c.deleted_at).getTime() + RETENTION_DAYS * 86_400_000).toLocaleDateString() : ''),
              },
              {
                key: 'actions',
                header: 'Actions',
                render: (c) =>
                  canEdit ? (
                    <button type="button" className="button secondary" disabled={busy} aria-label={`Restore ${c.name || c.id}`} onClick={() => void restore([c])}>
                      Restore
                    </button>
                  ) : null,
              },
            ]}
          />
        </>
      )}
      <Pager list={list} label="Trashed codes" />
      <ConfirmDialog
        isOpen={confirming !== null}
        onOpenChange={(o) => !o && setConfirming(null)}
        title={`Restore ${confirming?.length ?? 0} code(s)?`}
        confirmLabel="Restore"
        onConfirm={() => (confirming ? restore(confirming) : undefined)}
      >
        <p>Restored codes scan again. Dynamic codes count against the plan's limit again.</p>
      </ConfirmDialog>
    </>
  );
}
