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
import { TYPE_LABELS } from '../codes/target-fields';

type Code = Schemas['QrCodeDto'];

/** Days a trashed code is kept before it is deleted for good (the service's default retention). */
const RETENTION_DAYS = 30;

/** What the confirm dialog asks about: restoring codes, deleting one for good, or emptying the whole Trash. */
type Confirming = { kind: 'restore'; codes: Code[] } | { kind: 'delete'; code: Code } | { kind: 'empty' };

/**
 * The Trash: codes moved there (`status=trashed`, newest trashed first, one page at a time). Restoring keeps a code's id
 * and short link. Codes are deleted for good 30 days after they were trashed, or sooner: one by one ("Delete forever",
 * `DELETE /v1/trash/{id}`) or all at once ("Empty trash", `POST /v1/trash/empty`), each after a confirmation.
 */
export default function Trash() {
  const { canEdit } = useSession();
  const toast = useToast();
  const list = usePagedList(
    (cursor) => call(api.GET('/v1/qr-codes', { params: { query: { cursor, limit: 25, status: 'trashed', sort: 'deleted_at', order: 'desc' } } })),
    'trash',
  );
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirming, setConfirming] = useState<Confirming | null>(null);
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

  const deleteForever = async (code: Code) => {
    setBusy(true);
    try {
      await call(api.DELETE('/v1/trash/{id}', { params: { path: { id: code.id } } }));
      toast(`“${code.name || code.id}” deleted for good`);
    } catch (err) {
      toast(`Not deleted — ${asApiError(err).message}`, 'error');
    } finally {
      setBusy(false);
      setSelected(new Set());
      list.reload();
    }
  };

  const empty = async () => {
    setBusy(true);
    try {
      const { deleted } = await call(api.POST('/v1/trash/empty'));
      toast(deleted === 1 ? 'Trash emptied: 1 code deleted for good' : `Trash emptied: ${deleted} codes deleted for good`);
    } catch (err) {
      toast(`The Trash was not emptied — ${asApiError(err).message}`, 'error');
    } finally {
      setBusy(false);
      setSelected(new Set());
      list.reload();
    }
  };

  const name = (c: Code) => c.name || c.id;
  const dialog =
    confirming?.kind === 'restore'
      ? { title: `Restore ${confirming.codes.length} code(s)?`, label: 'Restore', destructive: false, run: () => restore(confirming.codes) }
      : confirming?.kind === 'delete'
        ? { title: `Delete “${name(confirming.code)}” forever?`, label: 'Delete forever', destructive: true, run: () => deleteForever(confirming.code) }
        : confirming?.kind === 'empty'
          ? { title: 'Empty the Trash?', label: 'Empty trash', destructive: true, run: empty }
          : null;

  const chosen = list.items.filter((c) => selected.has(c.id));
  return (
    <>
      <PageHeader
        title="Trash"
        actions={
          canEdit && list.items.length > 0 ? (
            <button type="button" className="button danger" disabled={busy} onClick={() => setConfirming({ kind: 'empty' })}>
              Empty trash
            </button>
          ) : undefined
        }
      />
      <p className="hint">
        Trashed codes no longer scan. Restore one to bring it back with the same short link. Codes are deleted for good {RETENTION_DAYS} days after they were
        trashed, or sooner when you delete them forever or empty the Trash.
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
              <button type="button" className="button" disabled={!chosen.length || busy} onClick={() => setConfirming({ kind: 'restore', codes: chosen })}>
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
              { key: 'type', header: 'Type', render: (c) => `${TYPE_LABELS[c.type] ?? c.type}${c.kind === 'static' ? ' (static)' : ''}` },
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
                    <div className="row-actions">
                      <button type="button" className="button secondary" disabled={busy} aria-label={`Restore ${name(c)}`} onClick={() => void restore([c])}>
                        Restore
                      </button>
                      <button type="button" className="button danger" disabled={busy} aria-label={`Delete forever ${name(c)}`} onClick={() => setConfirming({ kind: 'delete', code: c })}>
                        Delete forever
                      </button>
                    </div>
                  ) : null,
              },
            ]}
          />
        </>
      )}
      <Pager list={list} label="Trashed codes" />
      <ConfirmDialog
        isOpen={dialog !== null}
        onOpenChange={(o) => !o && setConfirming(null)}
        title={dialog?.title ?? ''}
        confirmLabel={dialog?.label ?? ''}
        destructive={dialog?.destructive}
        onConfirm={() => dialog?.run()}
      >
        {confirming?.kind === 'restore' && <p>Restored codes scan again. Dynamic codes count against the plan's limit again.</p>}
        {confirming?.kind === 'delete' && <p>The code and its short link are deleted permanently. This cannot be undone.</p>}
        {confirming?.kind === 'empty' && (
          <p>Every code in the Trash (not only this page) is deleted permanently, with its short link. Paused codes are kept. This cannot be undone.</p>
        )}
      </ConfirmDialog>
    </>
  );
}
