import { useState } from 'react';
import { api, call, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { DEFAULT_DRAFT, fromDesign, TemplateForm, toDesign, usePreview } from './TemplateForm';
import '../../components/settings-screens.css';

type Template = Schemas['TemplateDto'];

function Thumb({ t }: { t: Template }) {
  const p = usePreview({ template_id: t.id, design: {} });
  return <div className="preview">{p.url ? <img src={p.url} alt={`Preview of ${t.name}`} /> : <span className="hint">{p.error ?? 'Drawing…'}</span>}</div>;
}

/**
 * Saved design templates: list with previews, create from a design (or from an existing code's design), edit, delete.
 * New codes copy a template's design; editing or deleting a template changes no existing code.
 */
export default function Templates() {
  const { canEdit } = useSession();
  const toast = useToast();
  const list = usePagedList((cursor) => call(api.GET('/v1/templates', { params: { query: { cursor, limit: 12 } } })), '');
  const [mode, setMode] = useState<{ kind: 'create'; draft: typeof DEFAULT_DRAFT; name: string; seq: number } | { kind: 'edit'; t: Template } | null>(null);
  const [deleting, setDeleting] = useState<Template | null>(null);
  const [codeId, setCodeId] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();

  return (
    <>
      <PageHeader
        title="Templates"
        actions={
          canEdit &&
          !mode && (
            <button type="button" className="button" onClick={() => setMode({ kind: 'create', draft: DEFAULT_DRAFT, name: '', seq: Date.now() })}>
              New template
            </button>
          )
        }
      />
      <p className="hint">A template is a saved design. New codes made from it copy its design; changing a template later changes no existing code.</p>
      {mode?.kind === 'create' && (
        <>
          <form
            className="filters"
            aria-label="Start from a code's design"
            onSubmit={async (e) => {
              e.preventDefault();
              try {
                const code = await call(api.GET('/v1/qr-codes/{id}', { params: { path: { id: codeId.trim() } } }));
                setCodeError(undefined);
                setMode({ kind: 'create', draft: fromDesign(code.design), name: `${code.name || code.id} design`, seq: Date.now() });
              } catch (err) {
                setCodeError(asApiError(err).message);
              }
            }}
          >
            <div className={`field${codeError ? ' has-error' : ''}`}>
              <label htmlFor="from-code">Start from a code's design (code id)</label>
              <input id="from-code" value={codeId} placeholder="qr_…" onChange={(e) => setCodeId(e.target.value)} aria-invalid={codeError ? true : undefined} aria-describedby={codeError ? 'from-code-error' : undefined} />
              {codeError && (
                <p id="from-code-error" className="field-error">
                  {codeError}
                </p>
              )}
            </div>
            <button type="submit" className="button secondary">
              Use this code's design
            </button>
          </form>
          <TemplateForm
            key={mode.seq}
            title="New template"
            initialName={mode.name}
            initialDraft={mode.draft}
            submitLabel="Save template"
            onCancel={() => setMode(null)}
            onSubmit={async (name, draft) => {
              const t = await call(api.POST('/v1/templates', { body: { name, design: toDesign(draft, DEFAULT_DRAFT.error_correction) } }));
              toast(`Template “${t.name}” saved`);
              setMode(null);
              list.reset();
              list.reload();
            }}
          />
        </>
      )}
      {mode?.kind === 'edit' && (
        <TemplateForm
          key={mode.t.id}
          title={`Edit ${mode.t.name}`}
          initialName={mode.t.name}
          initialDraft={fromDesign(mode.t.design)}
          templateId={mode.t.id}
          submitLabel="Save changes"
          onCancel={() => setMode(null)}
          onSubmit={async (name, draft) => {
            const t = await call(api.PATCH('/v1/templates/{id}', { params: { path: { id: mode.t.id } }, body: { name, design: toDesign(draft, mode.t.design.error_correction) } }));
            toast(`Template “${t.name}” saved`);
            setMode(null);
            list.reload();
          }}
        />
      )}
      <h2>Saved templates</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && !list.items.length ? (
        <Loading />
      ) : !list.items.length ? (
        <Empty>No templates yet.</Empty>
      ) : (
        <ul className="cards" aria-label="Templates">
          {list.items.map((t) => (
            <li key={t.id} className="card">
              <h3>{t.name}</h3>
              <Thumb t={t} />
              <p className="hint">
                <code>{t.id}</code> · updated {new Date(t.updated_at).toLocaleDateString()}
              </p>
              {canEdit && (
                <div className="actions">
                  <button type="button" className="button secondary" aria-label={`Edit ${t.name}`} onClick={() => setMode({ kind: 'edit', t })}>
                    Edit
                  </button>
                  <button type="button" className="button danger" aria-label={`Delete ${t.name}`} onClick={() => setDeleting(t)}>
                    Delete
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager list={list} label="Templates" />
      <ConfirmDialog
        isOpen={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete template “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete template"
        destructive
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await call(api.DELETE('/v1/templates/{id}', { params: { path: { id: deleting.id } } }));
            toast(`Template “${deleting.name}” deleted`);
            if (mode?.kind === 'edit' && mode.t.id === deleting.id) setMode(null);
            list.reload();
          } catch (err) {
            toast(asApiError(err).message, 'error');
          }
        }}
      >
        <p>Codes made from it keep their design.</p>
      </ConfirmDialog>
    </>
  );
}
