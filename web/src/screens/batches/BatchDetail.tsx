import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, call, raw, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';
import { useLoad } from '../../api/paging';
import { DataTable } from '../../components/DataTable';
import { SelectField, TextField } from '../../components/FormField';
import { ErrorState, Loading, PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';

type Item = Schemas['BatchItemDto'];
const POLL_MS = 1000;
const ITEMS_SHOWN = 50;

/** Saves a Response body as a file (an object URL and a temporary link; the page's CSP allows no data: navigation). */
export async function saveResponse(res: Response, fallbackName: string): Promise<void> {
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One batch: a progress bar while it runs (polling GET /v1/batches/{id}), its items, and the ZIP download. */
export default function BatchDetail() {
  const { id = '' } = useParams();
  const batch = useLoad(() => call(api.GET('/v1/batches/{id}', { params: { path: { id } } })), [id]);
  const b = batch.data;
  const processing = b?.status === 'processing';

  useEffect(() => {
    if (!processing) return;
    const t = setTimeout(batch.reload, POLL_MS);
    return () => clearTimeout(t);
  }, [processing, b]);

  if (!b && batch.error) return <ErrorState error={batch.error} onRetry={batch.reload} />;
  if (!b) return <Loading />;
  const done = b.completed_count + b.error_count;
  const failed = b.items.map((item, index) => ({ item, index })).filter((x) => x.item.status === 'failed');
  return (
    <>
      <PageHeader title={`Batch ${b.id}`} actions={<Link to="/batches">All batches</Link>} />
      <div className="field">
        <label htmlFor="batch-progress">Progress</label>
        <progress id="batch-progress" max={b.total_count} value={done} aria-describedby="batch-progress-text" />
        <p id="batch-progress-text" role="status">
          {b.status === 'processing' ? 'Processing' : b.status === 'completed' ? 'Completed' : 'Failed'}: {b.completed_count} of {b.total_count} codes created
          {b.error_count ? `, ${b.error_count} failed` : ''}.
        </p>
      </div>
      {batch.error && <ErrorState error={batch.error} onRetry={batch.reload} />}
      {b.status !== 'processing' && <Download id={b.id} />}
      {failed.length > 0 && (
        <>
          <h2>Failed items</h2>
          <DataTable
            caption="Failed items"
            rows={failed.slice(0, ITEMS_SHOWN)}
            rowId={(x) => String(x.index)}
            columns={[
              { key: 'n', header: 'Item', render: (x) => x.index + 1 },
              { key: 'name', header: 'Name', render: (x) => x.item.name ?? '' },
              { key: 'error', header: 'Why', render: (x) => x.item.error ?? '' },
            ]}
          />
        </>
      )}
      <h2>Items</h2>
      <DataTable<Item & { index: number }>
        caption={b.items.length > ITEMS_SHOWN ? `The first ${ITEMS_SHOWN} items` : 'Items'}
        rows={b.items.slice(0, ITEMS_SHOWN).map((it, index) => ({ ...it, index }))}
        rowId={(x) => String(x.index)}
        columns={[
          { key: 'n', header: 'Item', render: (x) => x.index + 1 },
          { key: 'name', header: 'Name', render: (x) => x.name ?? '' },
          { key: 'type', header: 'Type', render: (x) => x.type ?? '' },
          { key: 'status', header: 'Status', render: (x) => x.status },
          { key: 'code', header: 'Code', render: (x) => (x.qr_code_id ? <Link to={`/codes/${x.qr_code_id}`}>{x.qr_code_id}</Link> : '') },
        ]}
      />
    </>
  );
}

function Download({ id }: { id: string }) {
  const toast = useToast();
  const [format, setFormat] = useState('png');
  const [size, setSize] = useState('600');
  const [printMm, setPrintMm] = useState('50');
  const [busy, setBusy] = useState(false);
  const [sizeError, setSizeError] = useState<string>();
  const [printError, setPrintError] = useState<string>();
  const download = async () => {
    setBusy(true);
    setSizeError(undefined);
    setPrintError(undefined);
    try {
      // Raster formats take a width in pixels; a PDF (vector) takes the printed width of each symbol.
      const q = new URLSearchParams({ format, ...(format === 'png' || format === 'webp' ? { size } : {}), ...(format === 'pdf' ? { print_mm: printMm } : {}) });
      await saveResponse(await raw(`/v1/batches/${encodeURIComponent(id)}/download?${q}`), `${id}.zip`);
    } catch (err) {
      const e = asApiError(err);
      if (e.field === 'size') setSizeError(e.message);
      else if (e.field === 'print_mm') setPrintError(e.message);
      else toast(e.message, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="zip" className="filters">
      <h2 id="zip" className="visually-hidden">
        Download
      </h2>
      <SelectField label="Image format" value={format} onChange={(e) => setFormat(e.target.value)} options={[
          { value: 'png', label: 'PNG' },
          { value: 'svg', label: 'SVG' },
          { value: 'webp', label: 'WebP' },
          { value: 'pdf', label: 'PDF (vector, for print)' },
        ]}
      />
      {(format === 'png' || format === 'webp') && <TextField label="Size (px)" type="number" min={100} max={4000} value={size} onChange={(e) => setSize(e.target.value)} error={sizeError} />}
      {format === 'pdf' && <TextField label="Printed width (mm)" type="number" min={10} max={1000} value={printMm} onChange={(e) => setPrintMm(e.target.value)} error={printError} />}
      <div className="field">
        <button type="button" className="button" disabled={busy} onClick={() => void download()}>
          {busy ? 'Preparing the ZIP…' : 'Download ZIP'}
        </button>
      </div>
    </section>
  );
}
