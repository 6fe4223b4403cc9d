import { useEffect, useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { PagedTable } from '../../components/DataTable';
import { FormError, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import '../../components/settings-screens.css';

type Folder = Schemas['FolderDto'];
type Errors = { fields: Record<string, string>; general?: string };

/** Folders group codes: list (cursor pages), create, rename, delete (its codes move to no folder). */
export default function Folders() {
  const { canEdit } = useSession();
  const toast = useToast();
  const list = usePagedList((cursor) => call(api.GET('/v1/folders', { params: { query: { cursor, limit: 25 } } })), '');
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<{ id: string; name: string; errors: Errors } | null>(null);
  const [deleting, setDeleting] = useState<Folder | null>(null);

  const create = async () => {
    setBusy(true);
    try {
      const f = await call(api.POST('/v1/folders', { body: { name } }));
      setName('');
      setErrors({ fields: {} });
      toast(`Folder “${f.name}” created`);
      list.reset();
      list.reload();
    } catch (err) {
      setErrors(fieldErrors(err, ['name']));
    } finally {
      setBusy(false);
    }
  };

  // When the rename form closes (saved or cancelled), the focus goes back to that row's Rename button.
  const [refocus, setRefocus] = useState<string | null>(null);
  useEffect(() => {
    if (refocus === null) return;
    document.querySelector<HTMLButtonElement>(`[data-rename="${refocus}"]`)?.focus();
    setRefocus(null);
  }, [refocus]);
  const closeRename = (id: string) => {
    setEditing(null);
    setRefocus(id);
  };

  const rename = async () => {
    if (!editing) return;
    try {
      const f = await call(api.PATCH('/v1/folders/{id}', { params: { path: { id: editing.id } }, body: { name: editing.name } }));
      closeRename(editing.id);
      toast(`Folder renamed to “${f.name}”`);
      list.reload();
    } catch (err) {
      setEditing({ ...editing, errors: fieldErrors(err, ['name']) });
    }
  };

  return (
    <>
      <PageHeader title="Folders" />
      <p className="hint">Folders group your codes; a code is in at most one folder. Deleting a folder keeps its codes (they move to no folder).</p>
      {canEdit ? (
        <form
          className="inline-form"
          aria-label="New folder"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <h2>New folder</h2>
          <FormError message={errors.general} />
          <TextField label="Folder name" name="name" value={name} maxLength={255} required onChange={(e) => setName(e.target.value)} error={errors.fields.name} />
          <button type="submit" className="button" disabled={busy}>
            Create folder
          </button>
        </form>
      ) : (
        <p className="hint">Your role can view folders but not change them.</p>
      )}
      <h2>All folders</h2>
      <PagedTable
        list={list}
        label="Folders"
        empty="No folders yet."
        caption="Folders"
        rowId={(f) => f.id}
        columns={[
          {
            key: 'name',
            header: 'Name',
            render: (f) =>
              editing?.id === f.id ? (
                <form
                  aria-label={`Rename ${f.name}`}
                  onSubmit={(e) => {
                    e.preventDefault();
                    void rename();
                  }}
                >
                  <FormError message={editing.errors.general} />
                  <TextField
                    label="New name"
                    name="name"
                    autoFocus
                    maxLength={255}
                    value={editing.name}
                    onChange={(e) => setEditing({ ...editing, name: e.target.value })}
                    error={editing.errors.fields.name}
                  />
                  <div className="actions">
                    <button type="submit" className="button">
                      Save
                    </button>
                    <button type="button" className="button secondary" onClick={() => closeRename(f.id)}>
                      Cancel
                    </button>
                  </div>
                </form>
              ) : (
                f.name
              ),
          },
          { key: 'id', header: 'Id', render: (f) => <code>{f.id}</code> },
          { key: 'created', header: 'Created', render: (f) => new Date(f.created_at).toLocaleString() },
          {
            key: 'actions',
            header: 'Actions',
            render: (f) =>
              canEdit && editing?.id !== f.id ? (
                <div className="actions">
                  <button type="button" className="button secondary" data-rename={f.id} aria-label={`Rename ${f.name}`} onClick={() => setEditing({ id: f.id, name: f.name, errors: { fields: {} } })}>
                    Rename
                  </button>
                  <button type="button" className="button danger" aria-label={`Delete ${f.name}`} onClick={() => setDeleting(f)}>
                    Delete
                  </button>
                </div>
              ) : null,
          },
        ]}
      />
      <ConfirmDialog
        isOpen={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete folder “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete folder"
        destructive
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await call(api.DELETE('/v1/folders/{id}', { params: { path: { id: deleting.id } } }));
            toast(`Folder “${deleting.name}” deleted`);
            list.reload();
          } catch (err) {
            toast(asApiError(err).message, 'error');
          }
        }}
      >
        <p>Its codes are kept and move to no folder.</p>
      </ConfirmDialog>
    </>
  );
}
