import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, call, raw, type Schemas } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { useLoad } from '../../api/paging';
import { FormError, SelectField, TextField } from '../../components/FormField';
import { ErrorState, Loading } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { useFolders } from '../codes/FolderSelect';
import { TARGET_TYPES, TYPE_LABELS } from '../codes/target-fields';
import { followLiveScans, type ScanRow } from './live-feed';
import './analytics.css';

type Answer = Schemas['AnalyticsDto'] | Schemas['WorkspaceAnalyticsDto'];
type Interval = 'hour' | 'day' | 'week' | 'month';
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
/** Each breakdown of the answer, its title, and the query parameter that keeps only scans of one of its values. */
const DIMENSIONS = [
  ['countries', 'Countries', 'country'],
  ['cities', 'Cities', 'city'],
  ['devices', 'Devices', 'device'],
  ['operating_systems', 'Operating systems', 'os'],
  ['browsers', 'Browsers', 'browser'],
  ['languages', 'Languages', 'language'],
  ['referrers', 'Referrers', 'referrer'],
] as const;
type DimensionParam = (typeof DIMENSIONS)[number][2];
type DimensionFilters = Partial<Record<DimensionParam, string>>;

/** Names the browser may report for UTC; the API's and the list's name for it is `UTC`. */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Universal', 'Etc/Zulu', 'Universal', 'Zulu']);
const localZone = () => {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    return UTC_NAMES.has(zone) ? 'UTC' : zone;
  } catch {
    return 'UTC';
  }
};
/** The browser's zone names (Intl lists no `UTC`: it comes first here, so that it can be chosen and shown). */
const zones = (): string[] => {
  try {
    return ['UTC', ...(Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC'];
  }
};
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

interface Filters {
  from: string;
  to: string;
  timezone: string;
  interval: Interval;
  /** Workspace analytics only ('' = every code). */
  folder_id: string;
  tag: string;
  type: string;
}

/** The query of the analytics call: the range, the workspace's code filters when set, and the dimension filters. */
const queryOf = (f: Filters, dims: DimensionFilters, workspace: boolean) => {
  const { folder_id, tag, type, ...range } = f;
  return { ...range, ...(workspace && { ...(folder_id && { folder_id }), ...(tag && { tag }), ...(type && { type }) }), ...dims };
};

/**
 * Analytics of one code (`codeId`) or of the workspace: totals, the series (total and unique) with interval and time
 * zone, the hour-of-week heat map, top dimensions, smart-URL rules and arms, the live feed and the CSV export. Every
 * chart has a table beside it (its text alternative).
 */
export default function AnalyticsView({ codeId }: { codeId?: string }) {
  const today = new Date();
  const initial: Filters = {
    from: isoDay(new Date(today.getTime() - 29 * 86_400_000)),
    to: isoDay(today),
    timezone: zones().includes(localZone()) ? localZone() : 'UTC',
    interval: 'day',
    folder_id: '',
    tag: '',
    type: '',
  };
  const [draft, setDraft] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(initial);
  const [dims, setDims] = useState<DimensionFilters>({});
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });

  const data = useLoad<Answer>(
    () =>
      codeId
        ? call(api.GET('/v1/qr-codes/{id}/analytics', { params: { path: { id: codeId }, query: queryOf(filters, dims, false) } }))
        : call(api.GET('/v1/analytics', { params: { query: queryOf(filters, dims, true) } })),
    [codeId, filters, dims],
  );
  useEffect(() => {
    if (data.error && data.error.status === 400) setErrors(fieldErrors(data.error, ['from', 'to', 'timezone', 'interval', 'folder_id', 'tag', 'type']));
    else if (!data.error) setErrors({ fields: {} });
  }, [data.error]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ ...draft });
  };
  const zoneOptions = useMemo(() => zones().map((z) => ({ value: z, label: z })), []);

  return (
    <div>
      <form className="filters" onSubmit={apply} aria-label="Analytics range">
        <TextField label="From" type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} error={errors.fields.from} />
        <TextField label="To" type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} error={errors.fields.to} />
        <SelectField
          label="Interval"
          value={draft.interval}
          onChange={(e) => setDraft({ ...draft, interval: e.target.value as Interval })}
          options={[
            { value: 'hour', label: 'Hour' },
            { value: 'day', label: 'Day' },
            { value: 'week', label: 'Week' },
            { value: 'month', label: 'Month' },
          ]}
          error={errors.fields.interval}
        />
        <SelectField label="Time zone" value={draft.timezone} onChange={(e) => setDraft({ ...draft, timezone: e.target.value })} options={zoneOptions} error={errors.fields.timezone} />
        {!codeId && <CodeFilters draft={draft} setDraft={setDraft} errors={errors.fields} />}
        <div className="field">
          <button type="submit" className="button">
            Show
          </button>
        </div>
        <div className="field">
          <ExportButton codeId={codeId} filters={filters} dims={dims} />
        </div>
      </form>
      <FormError message={errors.general} />
      {Object.keys(dims).length > 0 && (
        <ul className="chips" aria-label="Scan filters">
          {(Object.entries(dims) as Array<[DimensionParam, string]>).map(([k, v]) => (
            <li key={k}>
              <button type="button" className="button secondary" aria-label={`Remove filter ${k}: ${v}`} onClick={() => setDims(({ [k]: _gone, ...rest }) => rest)}>
                {k}: {v} ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {data.error && data.error.status !== 400 ? (
        <ErrorState error={data.error} onRetry={data.reload} />
      ) : !data.data ? (
        data.error ? null : <Loading />
      ) : (
        <Report a={data.data} onFilter={(k, v) => setDims((d) => ({ ...d, [k]: v }))} />
      )}
      <LiveFeed codeId={codeId} onScan={data.reload} />
    </div>
  );
}

function fmtStart(start: string, interval: string) {
  const d = start.slice(0, 10);
  return interval === 'hour' ? `${d} ${start.slice(11, 16)}` : interval === 'month' ? start.slice(0, 7) : d;
}

/** The workspace view's code filters: folder, tag (the workspace's tags) and target type. */
function CodeFilters({ draft, setDraft, errors }: { draft: Filters; setDraft: (f: Filters) => void; errors: Record<string, string> }) {
  const folders = useFolders();
  const tags = useLoad(() => call(api.GET('/v1/tags', { params: { query: { limit: 100 } } })), []);
  return (
    <>
      <SelectField label="Folder" value={draft.folder_id} onChange={(e) => setDraft({ ...draft, folder_id: e.target.value })} options={[{ value: '', label: 'Any folder' }, ...folders.map((f) => ({ value: f.id, label: f.name }))]} error={errors.folder_id} />
      <SelectField label="Tag" value={draft.tag} onChange={(e) => setDraft({ ...draft, tag: e.target.value })} options={[{ value: '', label: 'Any tag' }, ...(tags.data?.data ?? []).map((t) => ({ value: t.name, label: t.name }))]} error={errors.tag} />
      <SelectField label="Code type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })} options={[{ value: '', label: 'Any type' }, ...TARGET_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))]} error={errors.type} />
    </>
  );
}

function Report({ a, onFilter }: { a: Answer; onFilter: (param: DimensionParam, value: string) => void }) {
  const series = a.scans_by_interval.map((p) => ({ label: fmtStart(p.start, a.interval), scans: p.scans, unique: p.unique_scans }));
  const max = Math.max(0, ...a.by_hour_of_week);
  const level = (n: number) => (n === 0 || max === 0 ? 0 : Math.min(4, Math.ceil((n / max) * 4)));
  const withScans = series.filter((p) => p.scans > 0);
  const qrCodes = 'qr_codes' in a ? (a as Schemas['WorkspaceAnalyticsDto']).qr_codes : undefined;
  return (
    <>
      <ul className="stats" aria-label="Totals">
        <li>
          <strong>{a.total_scans}</strong> scans
        </li>
        <li>
          <strong>{a.unique_scans}</strong> unique visitors
        </li>
        <li>
          <strong>{a.expired_scans}</strong> scans after expiry
        </li>
      </ul>
      <section className="section" aria-labelledby="series-h">
        <h2 id="series-h">Scans over time</h2>
        <p id="series-summary">
          {a.total_scans} scans ({a.unique_scans} unique) in {series.length} {a.interval === 'day' ? 'days' : `${a.interval}s`}, times in {a.timezone}
          {a.last_scan_at ? `; last scan ${new Date(a.last_scan_at).toLocaleString()}` : ''}.
        </p>
        <div className="chart-box" role="img" aria-labelledby="series-h" aria-describedby="series-summary">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={series} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="label" minTickGap={24} />
              <YAxis allowDecimals={false} />
              <Tooltip />
              <Legend />
              <Line type="monotone" dataKey="scans" name="Scans" stroke="#1f4fa3" strokeWidth={2} dot={false} isAnimationActive={false} />
              <Line type="monotone" dataKey="unique" name="Unique" stroke="#b45309" strokeWidth={2} dot={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
        <details>
          <summary>The series as a table</summary>
          <SimpleTable
            caption="Scans per interval"
            headers={['Interval starting', 'Scans', 'Unique']}
            rows={(withScans.length ? withScans : series.slice(-10)).map((p) => [p.label, p.scans, p.unique])}
          />
        </details>
      </section>
      <section className="section" aria-labelledby="heat-h">
        <h2 id="heat-h">Hour of the week</h2>
        <p className="hint">Scans per hour of the week in {a.timezone}; darker is more.</p>
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Scans by hour of the week">
          <table className="heat">
            <caption className="visually-hidden">Scans by day of the week (rows) and hour (columns)</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {Array.from({ length: 24 }, (_, h) => (
                  <th key={h} scope="col">
                    {String(h).padStart(2, '0')}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {DAYS.map((d, i) => (
                <tr key={d}>
                  <th scope="row">
                    <abbr title={d}>{d.slice(0, 3)}</abbr>
                  </th>
                  {a.by_hour_of_week.slice(i * 24, i * 24 + 24).map((n, h) => (
                    <td key={h} className={`h${level(n)}`}>
                      {n}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="section" aria-labelledby="dims-h">
        <h2 id="dims-h">Top values</h2>
        <div className="dims">
          {qrCodes && (
            <SimpleTable
              caption="Codes"
              headers={['Code', 'Scans']}
              rows={qrCodes.map((c) => [<Link key={c.id} to={`/codes/${c.id}?tab=analytics`}>{c.name ?? c.id}</Link>, c.count])}
            />
          )}
          {DIMENSIONS.map(([key, title, param]) => (
            <SimpleTable
              key={key}
              caption={title}
              headers={[title.replace(/s$/, '').replace(/ie$/, 'y'), 'Scans']}
              rows={(a[key] ?? []).map((r) => [
                <button key={r.name} type="button" className="link-button" aria-label={`Only scans with ${param} ${r.name}`} onClick={() => onFilter(param, r.name)}>
                  {r.name}
                </button>,
                r.count,
              ])}
            />
          ))}
        </div>
      </section>
      {a.rules.length > 0 && (
        <section className="section" aria-labelledby="rules-h">
          <h2 id="rules-h">Smart-URL rules and arms</h2>
          <SimpleTable
            caption="Scans per rule and split arm"
            headers={['Rule', 'Arm', 'Scans']}
            rows={a.rules.map((r) => [r.rule_id === null ? 'Default URL' : (r.name ?? r.rule_id), r.arm === null || r.arm === undefined ? '—' : `Arm ${r.arm + 1}`, r.count])}
          />
        </section>
      )}
    </>
  );
}

function SimpleTable({ caption, headers, rows }: { caption: string; headers: string[]; rows: Array<Array<ReactNode>> }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table className="data-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {headers.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={headers.length}>No scans</td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr key={i}>
                {r.map((c, j) => (
                  <td key={j}>{c}</td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Downloads `GET /v1/scans?format=csv` for what the screen shows: the applied range and time zone, the code (or the
 * workspace's folder, tag and type selection) and the active dimension filters. `interval` only shapes the chart.
 */
function ExportButton({ codeId, filters, dims }: { codeId?: string; filters: Filters; dims: DimensionFilters }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const { interval: _chartOnly, ...selection } = queryOf(filters, dims, !codeId);
      const q = new URLSearchParams({ format: 'csv', ...selection });
      if (codeId) q.set('qr_code_id', codeId);
      const res = await raw(`/v1/scans?${q}`);
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = 'scans.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      toast(asApiError(err).message, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button secondary" disabled={busy} onClick={() => void run()}>
      {busy ? 'Exporting…' : 'Export CSV'}
    </button>
  );
}

const MAX_FEED = 20;

function LiveFeed({ codeId, onScan }: { codeId?: string; onScan: () => void }) {
  const [on, setOn] = useState(true);
  const [scans, setScans] = useState<ScanRow[]>([]);
  const [state, setState] = useState<{ s: 'connecting' | 'live' | 'error'; message?: string }>({ s: 'connecting' });
  const onScanRef = useMemo(() => ({ current: onScan }), []);
  onScanRef.current = onScan;
  useEffect(() => {
    if (!on) return;
    let refresh: ReturnType<typeof setTimeout> | undefined;
    const stop = followLiveScans(
      codeId,
      (s) => {
        setScans((prev) => [s, ...prev.filter((p) => p.id !== s.id)].slice(0, MAX_FEED));
        clearTimeout(refresh);
        refresh = setTimeout(() => onScanRef.current(), 500);
      },
      (s, message) => setState({ s, message }),
    );
    return () => {
      clearTimeout(refresh);
      stop();
    };
  }, [codeId, on]);
  return (
    <section className="section" aria-labelledby="live-h">
      <h2 id="live-h">Live scans</h2>
      <p className="hint">
        {!on ? 'Paused.' : state.s === 'live' ? 'Connected: new scans appear here within a second or two.' : state.s === 'connecting' ? 'Connecting…' : `Disconnected (${state.message ?? 'error'}); retrying…`}{' '}
        <button type="button" className="button secondary" onClick={() => setOn(!on)}>
          {on ? 'Pause live feed' : 'Resume live feed'}
        </button>
      </p>
      <ul className="live-feed" aria-live="polite" aria-label="Latest scans">
        {scans.length === 0 ? (
          <li>No scan since this page opened.</li>
        ) : (
          scans.map((s) => (
            <li key={s.id}>
              {new Date(s.scanned_at).toLocaleTimeString()} · {s.qr_code_id} · {[s.country, s.city, s.device, s.os, s.browser].filter(Boolean).join(' · ') || 'unknown visitor'}
              {s.rule_id ? ` · rule ${s.rule_id}${s.arm !== null ? ` arm ${s.arm + 1}` : ''}` : ''}
            </li>
          ))
        )}
      </ul>
    </section>
  );
}
