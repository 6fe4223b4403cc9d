import { useState } from 'react';
import { Link } from 'react-router';
import { api, call, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import { TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';
import '../../components/settings-screens.css';
import { TYPE_LABELS } from '../codes/target-fields';
import { retag } from './retag';

type Code = Schemas['QrCodeDto'];
const TAGS_PAGE = 50;
const MAX_TAG = 50;

/**
 * Tags label codes (up to 10 per code). The workspace's tags come from `GET /v1/tags` (by name, cursor pages, with the
 * number of live codes carrying each); choosing one lists its codes (`GET /v1/qr-codes?tag=`) and renames, removes or
 * adds it code by code. Static codes keep the tags they were created with (the API does not change them).
 */
export default function Tags() {
  const { canEdit } = useSession();
  const toast = useToast();
  const known = usePagedList((cursor) => call(api.GET('/v1/tags', { params: { query: { cursor, limit: TAGS_PAGE } } })), 'tags');
  const [draft, setDraft] = useState('');
  const [tag, setTag] = useState('');
  const codes = usePagedList(
    (cursor) => (tag ? call(api.GET('/v1/qr-codes', { params: { query: { cursor, limit: 25, tag } } })) : Promise.resolve({ data: [] as Code[], has_more: false, next_cursor: null })),
    tag,
  );
  const [newName, setNewName] = useState('');
  const [renameError, setRenameError] = useState<string | undefined>();
  const [progress, setProgress] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [search, setSearch] = useState('');
  const [searched, setSearched] = useState('');

  /** Applies `to` (null: remove) to every code carrying `from`, page by page (keyset cursors skip codes already done). */
  const everywhere = async (from: string, to: string | null) => {
    let cursor: string | undefined;
    let changed = 0;
    const failed: string[] = [];
    do {
      const page = await call(api.GET('/v1/qr-codes', { params: { query: { cursor, limit: 100, tag: from } } }));
      for (const c of page.data) {
        try {
          await call(api.PATCH('/v1/qr-codes/{id}', { params: { path: { id: c.id } }, body: { tags: retag(c.tags ?? [], from, to) } as never }));
          changed++;
          setProgress(`${changed} code(s) done…`);
        } catch (err) {
          failed.push(`${c.name || c.id} (${asApiError(err).message})`);
        }
      }
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor);
    setProgress(null);
    return { changed, failed };
  };

  const report = (verb: string, r: { changed: number; failed: string[] }) => {
    toast(`${verb} on ${r.changed} code(s)`);
    if (r.failed.length) toast(`Unchanged: ${r.failed.slice(0, 5).join('; ')}${r.failed.length > 5 ? ` and ${r.failed.length - 5} more` : ''}`, 'error');
    known.reload();
    codes.reload();
  };

  const addTo = async (c: Code) => {
    try {
      await call(api.PATCH('/v1/qr-codes/{id}', { params: { path: { id: c.id } }, body: { tags: retag([...(c.tags ?? []), tag], tag, tag) } as never }));
      toast(`“${tag}” added to ${c.name || c.id}`);
      codes.reload();
      known.reload();
    } catch (err) {
      toast(asApiError(err).message, 'error');
    }
  };

  return (
    <>
      <PageHeader title="Tags" />
      <p className="hint">Tags label codes: up to 10 per code, each up to 50 characters, case kept. Filter the codes list by tag, or manage a tag here.</p>
      <h2>Tags in use</h2>
      {known.error ? (
        <ErrorState error={known.error} onRetry={known.reload} />
      ) : known.loading && !known.items.length ? (
        <Loading />
      ) : !known.items.length ? (
        <Empty>No live code carries a tag yet.</Empty>
      ) : (
        <ul className="chips" aria-label="Tags in use">
          {known.items.map((t) => (
            <li key={t.name}>
              <button type="button" className="button secondary" aria-pressed={tag === t.name} onClick={() => (setTag(t.name), setDraft(t.name))}>
                {t.name} ({t.qr_code_count})
              </button>
            </li>
          ))}
        </ul>
      )}
      <Pager list={known} label="Tags" />
      <form
        className="filters"
        aria-label="Choose a tag"
        onSubmit={(e) => {
          e.preventDefault();
          setTag(draft.trim());
        }}
      >
        <TextField label="Tag" name="tag" maxLength={MAX_TAG} value={draft} onChange={(e) => setDraft(e.target.value)} hint="A new tag exists once a code carries it." />
        <button type="submit" className="button">
          Show codes
        </button>
      </form>
      {tag && (
        <section aria-labelledby="tag-heading">
          <h2 id="tag-heading">Codes tagged “{tag}”</h2>
          {codes.error ? (
            <ErrorState error={codes.error} onRetry={codes.reload} />
          ) : codes.loading && !codes.items.length ? (
            <Loading />
          ) : !codes.items.length ? (
            <Empty>No code carries “{tag}” yet.</Empty>
          ) : (
            <DataTable
              caption={`Codes tagged ${tag}`}
              rows={codes.items}
              rowId={(c) => c.id}
              columns={[
                { key: 'name', header: 'Name', render: (c) => <Link to={`/codes/${c.id}`}>{c.name || c.id}</Link> },
                { key: 'tags', header: 'Tags', render: (c) => (c.tags ?? []).join(', ') },
                { key: 'type', header: 'Type', render: (c) => TYPE_LABELS[c.type] ?? c.type },
              ]}
            />
          )}
          <Pager list={codes} label={`Codes tagged ${tag}`} />
          {canEdit && (
            <>
              <form
                aria-label={`Rename ${tag}`}
                onSubmit={async (e) => {
                  e.preventDefault();
                  const to = newName.trim();
                  if (!to || to.length > MAX_TAG) return setRenameError(`A tag has 1 to ${MAX_TAG} characters`);
                  setRenameError(undefined);
                  try {
                    report(`“${tag}” renamed to “${to}”`, await everywhere(tag, to));
                    setTag(to);
                    setDraft(to);
                    setNewName('');
                  } catch (err) {
                    setRenameError(asApiError(err).message);
                  }
                }}
              >
                <h3>Rename “{tag}” on every code</h3>
                <TextField label="New tag name" name="new_name" maxLength={MAX_TAG} value={newName} onChange={(e) => setNewName(e.target.value)} error={renameError} />
                <div className="actions">
                  <button type="submit" className="button" disabled={Boolean(progress)}>
                    Rename tag
                  </button>
                  <button type="button" className="button danger" disabled={Boolean(progress)} onClick={() => setRemoving(true)}>
                    Delete tag
                  </button>
                </div>
                {progress && <p role="status">{progress}</p>}
              </form>
              <form
                className="filters"
                aria-label={`Add ${tag} to codes`}
                onSubmit={(e) => {
                  e.preventDefault();
                  setSearched(search.trim());
                }}
              >
                <h3>Add “{tag}” to codes</h3>
                <TextField label="Find codes by name" name="search" value={search} onChange={(e) => setSearch(e.target.value)} />
                <button type="submit" className="button secondary">
                  Find codes
                </button>
              </form>
              {searched && <SearchResults search={searched} tag={tag} onAdd={addTo} />}
            </>
          )}
        </section>
      )}
      <ConfirmDialog
        isOpen={removing}
        onOpenChange={setRemoving}
        title={`Delete the tag “${tag}”?`}
        confirmLabel="Delete tag"
        destructive
        onConfirm={async () => {
          try {
            report(`“${tag}” removed`, await everywhere(tag, null));
          } catch (err) {
            toast(asApiError(err).message, 'error');
          }
        }}
      >
        <p>The tag is removed from every code carrying it. The codes themselves are kept.</p>
      </ConfirmDialog>
    </>
  );
}

function SearchResults({ search, tag, onAdd }: { search: string; tag: string; onAdd: (c: Code) => Promise<void> }) {
  const found = usePagedList((cursor) => call(api.GET('/v1/qr-codes', { params: { query: { cursor, limit: 10, search } } })), search);
  if (found.error) return <ErrorState error={found.error} onRetry={found.reload} />;
  if (found.loading && !found.items.length) return <Loading />;
  if (!found.items.length) return <Empty>No code matches “{search}”.</Empty>;
  return (
    <>
      <DataTable
        caption={`Codes matching ${search}`}
        rows={found.items}
        rowId={(c) => c.id}
        columns={[
          { key: 'name', header: 'Name', render: (c) => c.name || c.id },
          { key: 'tags', header: 'Tags', render: (c) => (c.tags ?? []).join(', ') },
          {
            key: 'add',
            header: 'Action',
            render: (c) =>
              (c.tags ?? []).includes(tag) ? (
                <span className="hint">Tagged</span>
              ) : (
                <button
                  type="button"
                  className="button secondary"
                  aria-label={`Add tag ${tag} to ${c.name || c.id}`}
                  onClick={async () => {
                    await onAdd(c);
                    found.reload();
                  }}
                >
                  Add tag
                </button>
              ),
          },
        ]}
      />
      <Pager list={found} label="Matching codes" />
    </>
  );
}
