import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { api, call, raw, rawJson, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { useLoad } from '../../api/paging';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { FormError, TextField } from '../../components/FormField';
import { toLocalInput } from '../../components/local-time';
import { useSession } from '../../components/session-context';
import { ErrorState, Loading, PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { hasContentTab, hasRulesTab } from './code-types';
import { DESIGN_FIELDS, DesignEditor, designPatch, type Design } from './DesignEditor';
import { Downloads } from './Downloads';
import { FolderSelect } from './FolderSelect';
import { LinkControlFields, LINK_CONTROL_FIELDS, linkControlBody, type LinkControls } from './LinkControls';
import { TargetFields } from './TargetFields';
import { buildTarget, fieldsFor, TYPE_LABELS, valuesOf, type Values } from './target-fields';

const ContentEditor = lazy(() => import('./ContentEditor'));
const RulesEditor = lazy(() => import('./RulesEditor'));
const CodeAnalytics = lazy(() => import('../analytics/CodeAnalytics'));

type QrCode = Schemas['QrCodeDto'];

function statusOf(c: QrCode): string {
  if (c.deleted_at) return 'In the Trash';
  if (c.kind === 'static') return 'Static';
  return c.is_active ? 'Active' : 'Paused';
}

/** One code: overview and downloads, settings (destination, folder, tags, link controls), design, and (when its type
 * has them) hosted-page content, smart-URL rules and analytics; pause, trash and restore. */
export default function CodeDetail() {
  const { id = '' } = useParams();
  const { canEdit } = useSession();
  const toast = useToast();
  const code = useLoad(() => call(api.GET('/v1/qr-codes/{id}', { params: { path: { id } } })), [id]);
  const [confirmTrash, setConfirmTrash] = useState(false);
  const tabParam = useSearchParams()[0].get('tab');
  if (code.loading && !code.data) return <Loading />;
  if (code.error) return <ErrorState error={code.error} onRetry={code.reload} />;
  const c = code.data!;
  const trashed = Boolean(c.deleted_at);

  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      toast(what);
      code.reload();
    } catch (err) {
      toast(asApiError(err).message, 'error');
    }
  };

  return (
    <>
      <PageHeader
        title={c.name}
        actions={
          canEdit && (
            <>
              {!trashed && c.kind === 'dynamic' && (
                <button type="button" className="button secondary" onClick={() => act(c.is_active ? 'Code paused' : 'Code resumed', () => rawJson(`/v1/qr-codes/${c.id}`, { method: 'PATCH', json: { is_active: !c.is_active } }))}>
                  {c.is_active ? 'Pause' : 'Resume'}
                </button>
              )}
              {trashed ? (
                <button type="button" className="button" onClick={() => act('Code restored', () => rawJson(`/v1/qr-codes/${c.id}/restore`, { method: 'POST' }))}>
                  Restore
                </button>
              ) : (
                <button type="button" className="button danger" onClick={() => setConfirmTrash(true)}>
                  Move to Trash
                </button>
              )}
            </>
          )
        }
      >
        <p>
          <span className="badge">{TYPE_LABELS[c.type] ?? c.type}</span> <span className="badge">{statusOf(c)}</span>{' '}
          {c.short_url && (
            <a href={c.short_url} target="_blank" rel="noreferrer">
              {c.short_url}
            </a>
          )}
        </p>
      </PageHeader>
      <ConfirmDialog isOpen={confirmTrash} onOpenChange={setConfirmTrash} title="Move this code to the Trash?" confirmLabel="Move to Trash" destructive onConfirm={() => act('Code moved to the Trash', () => rawJson(`/v1/qr-codes/${c.id}`, { method: 'DELETE' }))}>
        <p>Scans stop working at once. You can restore it from the Trash for 30 days.</p>
      </ConfirmDialog>
      {/* `?tab=analytics` (the workspace analytics' drill-down) opens that tab. */}
      <Tabs defaultSelectedKey={tabParam ?? undefined}>
        <TabList aria-label="Code sections" className="tabs">
          <Tab id="overview">Overview</Tab>
          <Tab id="settings">Settings</Tab>
          <Tab id="design">Design</Tab>
          {hasContentTab(c.type) && <Tab id="content">Content</Tab>}
          {hasRulesTab(c.type) && <Tab id="rules">Rules</Tab>}
          {c.kind === 'dynamic' && <Tab id="analytics">Analytics</Tab>}
        </TabList>
        <TabPanel id="overview">
          <Overview code={c} />
        </TabPanel>
        <TabPanel id="settings">
          <Settings code={c} onSaved={code.setData} />
        </TabPanel>
        <TabPanel id="design">
          <DesignTab code={c} onSaved={code.setData} />
        </TabPanel>
        <Suspense fallback={<Loading />}>
          {hasContentTab(c.type) && (
            <TabPanel id="content">
              <ContentEditor codeId={c.id} />
            </TabPanel>
          )}
          {hasRulesTab(c.type) && (
            <TabPanel id="rules">
              <RulesEditor codeId={c.id} />
            </TabPanel>
          )}
          {c.kind === 'dynamic' && (
            <TabPanel id="analytics">
              <CodeAnalytics codeId={c.id} />
            </TabPanel>
          )}
        </Suspense>
      </Tabs>
    </>
  );
}

function Overview({ code: c }: { code: QrCode }) {
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    raw(`/v1/qr-codes/${c.id}/download?format=png&size=480`)
      .then((r) => r.blob())
      .then((b) => setImage((url = URL.createObjectURL(b))))
      .catch(() => undefined);
    return () => void (url && URL.revokeObjectURL(url));
  }, [c.id, c.updated_at]);
  return (
    <div className="editor-grid">
      <div>
        <dl>
          <dt>Kind</dt>
          <dd>{c.kind === 'dynamic' ? 'Dynamic (editable, counted)' : 'Static (encoded in the image)'}</dd>
          {c.short_url && (
            <>
              <dt>Short URL</dt>
              <dd>{c.short_url}</dd>
            </>
          )}
          <dt>Scans</dt>
          <dd>{c.scan_count ?? '—'}</dd>
          <dt>Tags</dt>
          <dd>{c.tags.length ? c.tags.join(', ') : '—'}</dd>
          <dt>Created</dt>
          <dd>{new Date(c.created_at).toLocaleString()}</dd>
        </dl>
        <Downloads codeId={c.id} />
      </div>
      <div className="preview">{image ? <img src={image} alt={`QR code “${c.name}”`} /> : <Loading />}</div>
    </div>
  );
}


function Settings({ code: c, onSaved }: { code: QrCode; onSaved: (c: QrCode) => void }) {
  const { canEdit } = useSession();
  const toast = useToast();
  const target = c.target as Record<string, unknown>;
  const editable = c.kind === 'dynamic' && target.editable !== false && !hasContentTab(c.type) && !hasRulesTab(c.type);
  const fields = editable ? fieldsFor(c.type) : [];
  // A dynamic GS1 code is re-pointed by its default link (PATCH `destination`); its other links go through the API.
  const gs1 = c.type === 'gs1';
  const [defaultLink, setDefaultLink] = useState(String(target.default_link ?? ''));
  const [name, setName] = useState(c.name);
  const [values, setValues] = useState<Values>(() => valuesOf(c.type, target));
  const [folderId, setFolderId] = useState(c.folder_id ?? '');
  const [tags, setTags] = useState(c.tags.join(', '));
  const [controls, setControls] = useState<LinkControls>({ expires_at: toLocalInput(c.expires_at), expired_url: c.expired_url ?? '', max_scans: c.max_scans?.toString() ?? '' });
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const { type: _type, ...newTarget } = buildTarget(c.type, values, { clear: true });
      const body: Record<string, unknown> = {
        name,
        folder_id: folderId || null,
        // A static code takes a new name, folder and design only (its tags cannot change: 422 code_not_editable).
        ...(c.kind === 'dynamic' && { tags: tags.split(',').map((t) => t.trim()).filter(Boolean) }),
        ...(editable && { target: newTarget }),
        ...(gs1 && c.kind === 'dynamic' && defaultLink !== String(target.default_link ?? '') && { destination: defaultLink }),
        ...(c.kind === 'dynamic' ? linkControlBody(controls, true, { gs1 }) : {}),
      };
      const saved = await rawJson<QrCode>(`/v1/qr-codes/${c.id}`, { method: 'PATCH', json: body });
      toast('Changes saved');
      setControls((x) => ({ ...x, password: '', removePassword: false }));
      onSaved(saved);
    } catch (err) {
      setErrors(fieldErrors(err, ['name', 'folder_id', 'tags', 'target', 'destination', ...fields.map((f) => f.name), ...LINK_CONTROL_FIELDS]));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormError message={errors.general} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.fields.name} disabled={!canEdit} />
      {editable ? (
        <fieldset disabled={!canEdit}>
          <legend>Destination</legend>
          <TargetFields type={c.type} fields={fields} values={values} onChange={setValues} errors={errors.fields} />
          {errors.fields.target && <p className="field-error">{errors.fields.target}</p>}
        </fieldset>
      ) : gs1 && c.kind === 'dynamic' ? (
        <fieldset disabled={!canEdit}>
          <legend>Destination</legend>
          <TextField
            label="Default link (required)"
            type="url"
            value={defaultLink}
            onChange={(e) => setDefaultLink(e.target.value)}
            hint="Where the resolver sends scans that ask for no particular link; other links and qualifiers are changed through the API"
            error={errors.fields.destination}
          />
        </fieldset>
      ) : (
        <p className="hint">
          {c.kind === 'static' ? 'A static code’s content is in its image and cannot change.' : 'This code’s page is edited in its Content or Rules tab.'}
        </p>
      )}
      <FolderSelect value={folderId} onChange={setFolderId} error={errors.fields.folder_id} disabled={!canEdit} />
      {c.kind === 'dynamic' && <TextField label="Tags" value={tags} onChange={(e) => setTags(e.target.value)} hint="Comma-separated" error={errors.fields.tags} disabled={!canEdit} />}
      {c.kind === 'dynamic' && <LinkControlFields value={controls} onChange={setControls} errors={errors.fields} hasPassword={c.has_password} gs1={gs1} disabled={!canEdit} />}
      {canEdit && (
        <button type="submit" className="button" disabled={busy}>
          Save changes
        </button>
      )}
    </form>
  );
}

function DesignTab({ code: c, onSaved }: { code: QrCode; onSaved: (c: QrCode) => void }) {
  const { canEdit } = useSession();
  const toast = useToast();
  // The whole stored design (gradient, eye colours, frame colour too), so that the preview draws what the code has;
  // the logo's URL is never sent back (`has_logo`), so a stored logo stays as it is unless it is replaced or removed.
  const { has_logo: hasLogo, ...stored } = c.design as unknown as Design & { has_logo?: boolean };
  const [design, setDesign] = useState<Design>(() => ({ ...stored, frame: stored.frame ?? undefined, logo: undefined }));
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [busy, setBusy] = useState(false);
  // The response's own fields (`editable`, `summary`) are not part of a creation body: the preview would refuse them.
  const { editable: _editable, summary: _summary, ...previewTarget } = c.target as Record<string, unknown>;
  const save = async () => {
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const saved = await rawJson<QrCode>(`/v1/qr-codes/${c.id}`, { method: 'PATCH', json: { design: designPatch(design) } });
      toast('Design saved');
      onSaved(saved);
    } catch (err) {
      setErrors(fieldErrors(err, [...DESIGN_FIELDS]));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <FormError message={errors.general} />
      <DesignEditor
        design={design}
        onChange={(d) => {
          setDesign(d);
          setErrors({ fields: {} }); // a refusal of the last save no longer describes the changed design
        }}
        previewBody={{ type: c.kind, ...(c.kind === 'static' && { target: { ...previewTarget, type: c.type } }) }}
        errors={errors.fields}
        storedLogo={hasLogo === true}
      />
      {canEdit && (
        <button type="button" className="button" disabled={busy} onClick={save}>
          Save the design
        </button>
      )}
      <p>
        <Link to="/templates">Templates</Link> keep a design for reuse.
      </p>
    </>
  );
}
