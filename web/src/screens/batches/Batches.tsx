import { useState, type ChangeEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { usePagedList } from '../../api/paging';
import { DataTable } from '../../components/DataTable';
import { FormError } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { Empty, ErrorState, Loading, PageHeader, Pager } from '../../components/States';
import { cleanDesign, DESIGN_FIELDS, DesignEditor, type Design } from '../codes/DesignEditor';
import { inferType, lineOfItemField, MAX_ITEMS, parseBatchCsv, type ParsedCsv } from './batch-csv';

type Batch = Schemas['BatchDto'];
const PREVIEW_ROWS = 20;

/** Batches: create one from a CSV file (previewed and checked first), and the list of past batches. */
export default function Batches() {
  const { canEdit } = useSession();
  const list = usePagedList((cursor) => call(api.GET('/v1/batches', { params: { query: { cursor, limit: 25 } } })), 'batches');
  return (
    <>
      <PageHeader title="Batches" />
      {canEdit && <NewBatch />}
      <h2>Past batches</h2>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && list.items.length === 0 ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>No batch yet.</Empty>
      ) : (
        <>
          <DataTable<Batch>
            caption="Batches"
            rows={list.items}
            rowId={(b) => b.id}
            columns={[
              { key: 'id', header: 'Batch', render: (b) => <Link to={`/batches/${b.id}`}>{b.id}</Link> },
              { key: 'status', header: 'Status', render: (b) => <span className="badge">{b.status}</span> },
              { key: 'progress', header: 'Codes', render: (b) => `${b.completed_count} of ${b.total_count} created${b.error_count ? `, ${b.error_count} failed` : ''}` },
              { key: 'created', header: 'Created', render: (b) => new Date(b.created_at).toLocaleString() },
            ]}
          />
          <Pager list={list} label="Batches" />
        </>
      )}
    </>
  );
}

function NewBatch() {
  const navigate = useNavigate();
  const [parsed, setParsed] = useState<ParsedCsv | null>(null);
  const [fileName, setFileName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // One design (and/or template) for every code of the batch, previewed on the first row.
  const [design, setDesign] = useState<Design>({});
  const [templateId, setTemplateId] = useState('');
  const [designErrors, setDesignErrors] = useState<Record<string, string>>({});

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    setError(undefined);
    const file = e.target.files?.[0];
    if (!file) return setParsed(null);
    setFileName(file.name);
    setParsed(parseBatchCsv(await file.text()));
  };

  const bad = parsed ? parsed.rows.filter((r) => r.errors.length) : [];
  const ready = parsed && parsed.errors.length === 0 && bad.length === 0 && parsed.rows.length > 0;

  const create = async () => {
    if (!parsed || !ready) return;
    setBusy(true);
    setError(undefined);
    setDesignErrors({});
    try {
      const body = {
        items: parsed.rows.map((r) => r.item),
        ...(Object.keys(cleanDesign(design)).length > 0 && { design: cleanDesign(design) }),
        ...(templateId && { template_id: templateId }),
      } as unknown as Schemas['CreateBatchDto'];
      const batch = await call(api.POST('/v1/batches', { body }));
      void navigate(`/batches/${batch.id}`);
    } catch (err) {
      const e = asApiError(err);
      const line = lineOfItemField(e.field, parsed.rows);
      const atDesign = fieldErrors(err, [...DESIGN_FIELDS]).fields;
      if (!line && Object.keys(atDesign).length) setDesignErrors(atDesign);
      else setError(line ? `Line ${line} of the file: ${e.message}` : e.message);
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="new-batch">
      <h2 id="new-batch">New batch from a CSV file</h2>
      <div className="field">
        <label htmlFor="batch-csv">CSV file</label>
        <input id="batch-csv" type="file" accept=".csv,text/csv" aria-describedby="batch-csv-hint" onChange={(e) => void onFile(e)} />
        <p id="batch-csv-hint" className="hint">
          A header line, then one code per row (up to {MAX_ITEMS}). Columns: <code>name</code>, and the target: <code>destination</code> (a URL),{' '}
          <code>text</code>, <code>email</code>, <code>phone</code>, <code>ssid</code>/<code>password</code>/<code>encryption</code> (Wi-Fi),{' '}
          <code>title</code>/<code>start</code> (event); optional <code>kind</code> (dynamic or static), <code>tags</code> (separated by ;),{' '}
          <code>folder_id</code>, <code>utm_source</code>…
        </p>
      </div>
      {parsed && (
        <>
          <p role="status">
            {fileName}: {parsed.rows.length} row{parsed.rows.length === 1 ? '' : 's'}
            {bad.length ? `, ${bad.length} with problems` : ''}.
          </p>
          {parsed.errors.length > 0 && (
            <ul className="form-error" aria-label="Problems with the file">
              {parsed.errors.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
          {bad.length > 0 && (
            <ul className="form-error" aria-label="Rows with problems">
              {bad.slice(0, 20).map((r) => (
                <li key={r.line}>
                  Line {r.line}: {r.errors.join('; ')}
                </li>
              ))}
              {bad.length > 20 && <li>…and {bad.length - 20} more rows</li>}
            </ul>
          )}
          <DataTable
            caption={`Preview of the first ${Math.min(PREVIEW_ROWS, parsed.rows.length)} rows`}
            rows={parsed.rows.slice(0, PREVIEW_ROWS)}
            rowId={(r) => String(r.line)}
            columns={[
              { key: 'line', header: 'Line', render: (r) => r.line },
              { key: 'name', header: 'Name', render: (r) => r.item.name ?? '' },
              { key: 'target', header: 'Target', render: (r) => Object.entries(r.item.target).filter(([k]) => k !== 'password').map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ') },
              { key: 'kind', header: 'Kind', render: (r) => r.item.type ?? 'dynamic' },
              { key: 'check', header: 'Check', render: (r) => (r.errors.length ? r.errors.join('; ') : 'OK') },
            ]}
          />
          {parsed.rows.length > 0 && (
            <details open={Object.keys(designErrors).length > 0 || undefined}>
              <summary>Design for every code (optional)</summary>
              <DesignEditor
                design={design}
                onChange={setDesign}
                templateId={templateId}
                onTemplateChange={setTemplateId}
                previewBody={{ type: parsed.rows[0].item.type as 'dynamic' | 'static' | undefined, target: { ...parsed.rows[0].item.target, type: inferType(parsed.rows[0].item.target) } }}
                errors={designErrors}
              />
            </details>
          )}
          <FormError message={error} />
          <p>
            <button type="button" className="button" disabled={!ready || busy} onClick={() => void create()}>
              {busy ? 'Creating…' : `Create ${parsed.rows.length} codes`}
            </button>
          </p>
        </>
      )}
    </section>
  );
}
