import { useEffect, useState, type FormEvent } from 'react';
import { api, call, rawJson, type Schemas } from '../../api/client';
import { fieldErrors } from '../../api/errors';
import { useLoad } from '../../api/paging';
import { CheckboxField, FormError, SelectField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { ErrorState, Loading } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { DAYS, DEVICES, emptyRule, fromDraft, OSES, ruleFieldNames, toDraft, type ApiRule, type RuleDraft } from './smart-rules-form';

type Errors = { fields: Record<string, string>; general?: string };
const MAX_RULES = 20;
const MAX_ARMS = 10;

/** A smart-URL code's default URL and rules (PUT /v1/qr-codes/{id}/content), and the rule tester. */
export default function RulesEditor({ codeId }: { codeId: string }) {
  const code = useLoad(() => call(api.GET('/v1/qr-codes/{id}', { params: { path: { id: codeId } } })), [codeId]);
  if (code.error) return <ErrorState error={code.error} onRetry={code.reload} />;
  if (!code.data) return <Loading />;
  const target = code.data.target as unknown as { default_url?: string; rules?: ApiRule[] };
  return (
    <>
      <RulesForm codeId={codeId} defaultUrl={target.default_url ?? ''} rules={target.rules ?? []} onSaved={code.reload} />
      <RuleTester codeId={codeId} />
    </>
  );
}

function RulesForm({ codeId, defaultUrl, rules, onSaved }: { codeId: string; defaultUrl: string; rules: ApiRule[]; onSaved: () => void }) {
  const { canEdit } = useSession();
  const toast = useToast();
  const [url, setUrl] = useState(defaultUrl);
  const [drafts, setDrafts] = useState<RuleDraft[]>(() => rules.map(toDraft));
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setUrl(defaultUrl);
    setDrafts(rules.map(toDraft));
  }, [defaultUrl, rules]);

  const set = (i: number, patch: Partial<RuleDraft>) => setDrafts((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  // After a move the focus follows the moved rule to its new place: its button for the same direction, or the other
  // one where that is now disabled (first or last), so a keyboard user does not land on the page's body.
  const [movedTo, setMovedTo] = useState<{ index: number; by: number } | null>(null);
  useEffect(() => {
    if (!movedTo) return;
    const button = (by: number) => document.querySelector<HTMLButtonElement>(`[data-move="${movedTo.index}:${by}"]`);
    [button(movedTo.by), button(-movedTo.by)].find((b) => b && !b.disabled)?.focus();
    setMovedTo(null);
  }, [movedTo]);
  const move = (i: number, by: number) => {
    setDrafts((ds) => {
      const next = [...ds];
      const [r] = next.splice(i, 1);
      next.splice(i + by, 0, r);
      return next;
    });
    setMovedTo({ index: i + by, by });
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      await call(api.PUT('/v1/qr-codes/{id}/content', { params: { path: { id: codeId } }, body: { default_url: url.trim(), rules: drafts.map(fromDraft) } as never }));
      toast('Rules saved');
      onSaved();
    } catch (err) {
      setErrors(fieldErrors(err, ruleFieldNames(drafts)));
    } finally {
      setBusy(false);
    }
  };

  const f = errors.fields;
  return (
    <form onSubmit={(e) => void save(e)} aria-labelledby="rules-h" noValidate>
      <h2 id="rules-h">Rules</h2>
      <p className="hint">The first rule whose conditions all hold chooses the destination; when none does, the scan goes to the default URL.</p>
      <FormError message={errors.general ?? f.rules} />
      <TextField label="Default URL" name="default_url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={f.default_url} disabled={!canEdit} />
      {drafts.map((d, i) => {
        const p = `rules.${i}`;
        const n = i + 1;
        return (
          <fieldset key={d.id ?? `new-${i}`} className="rule">
            <legend>
              Rule {n}
              {d.name ? `: ${d.name}` : ''}
            </legend>
            <FormError message={f[p] ?? f[`${p}.if`] ?? f[`${p}.then`]} />
            <TextField label={`Rule ${n} name`} value={d.name} onChange={(e) => set(i, { name: e.target.value })} error={f[`${p}.name`]} disabled={!canEdit} />
            <div className="filters">
              <TextField label={`Rule ${n} countries`} hint="ISO codes, e.g. FR, BE" value={d.country} onChange={(e) => set(i, { country: e.target.value })} error={f[`${p}.if.country`]} disabled={!canEdit} />
              <TextField label={`Rule ${n} regions`} hint="e.g. US-CA" value={d.region} onChange={(e) => set(i, { region: e.target.value })} error={f[`${p}.if.region`]} disabled={!canEdit} />
              <TextField label={`Rule ${n} languages`} hint="e.g. fr, de-AT" value={d.language} onChange={(e) => set(i, { language: e.target.value })} error={f[`${p}.if.language`]} disabled={!canEdit} />
            </div>
            <Choices legend={`Rule ${n} devices`} values={DEVICES} chosen={d.device} onChange={(device) => set(i, { device })} error={f[`${p}.if.device`]} disabled={!canEdit} />
            <Choices legend={`Rule ${n} operating systems`} values={OSES} chosen={d.os} onChange={(os) => set(i, { os })} error={f[`${p}.if.os`]} disabled={!canEdit} />
            <CheckboxField label={`Rule ${n}: only at certain times`} checked={d.timeOn} onChange={(e) => set(i, { timeOn: e.target.checked })} disabled={!canEdit} />
            {d.timeOn && (
              <>
                <Choices legend={`Rule ${n} days`} values={DAYS} chosen={d.days} onChange={(days) => set(i, { days })} error={f[`${p}.if.time.days`]} disabled={!canEdit} />
                <div className="filters">
                  <TextField label={`Rule ${n} from (HH:MM)`} type="time" value={d.timeFrom} onChange={(e) => set(i, { timeFrom: e.target.value })} error={f[`${p}.if.time.from`]} disabled={!canEdit} />
                  <TextField label={`Rule ${n} to (HH:MM)`} type="time" value={d.timeTo} onChange={(e) => set(i, { timeTo: e.target.value })} error={f[`${p}.if.time.to`]} disabled={!canEdit} />
                  <TextField label={`Rule ${n} time zone`} hint="IANA, e.g. Europe/Paris" value={d.timezone} onChange={(e) => set(i, { timezone: e.target.value })} error={f[`${p}.if.time.timezone`] ?? f[`${p}.if.time`]} disabled={!canEdit} />
                </div>
              </>
            )}
            <div className="filters">
              <TextField label={`Rule ${n} from date`} hint="RFC 3339, e.g. 2026-12-01T00:00:00Z" value={d.dateFrom} onChange={(e) => set(i, { dateFrom: e.target.value })} error={f[`${p}.if.date.from`] ?? f[`${p}.if.date`]} disabled={!canEdit} />
              <TextField label={`Rule ${n} to date`} value={d.dateTo} onChange={(e) => set(i, { dateTo: e.target.value })} error={f[`${p}.if.date.to`]} disabled={!canEdit} />
              <TextField label={`Rule ${n} from scan number`} type="number" min={1} value={d.scansFrom} onChange={(e) => set(i, { scansFrom: e.target.value })} error={f[`${p}.if.scans.from`] ?? f[`${p}.if.scans`]} disabled={!canEdit} />
              <TextField label={`Rule ${n} to scan number`} type="number" min={1} value={d.scansTo} onChange={(e) => set(i, { scansTo: e.target.value })} error={f[`${p}.if.scans.to`]} disabled={!canEdit} />
            </div>
            <SelectField
              label={`Rule ${n} sends to`}
              value={d.mode}
              onChange={(e) => set(i, { mode: e.target.value as RuleDraft['mode'] })}
              options={[
                { value: 'destination', label: 'One destination' },
                { value: 'split', label: 'A split (A/B test)' },
              ]}
              disabled={!canEdit}
            />
            {d.mode === 'destination' ? (
              <TextField label={`Rule ${n} destination`} type="url" value={d.destination} onChange={(e) => set(i, { destination: e.target.value })} error={f[`${p}.then.destination`]} disabled={!canEdit} />
            ) : (
              <>
                <FormError message={f[`${p}.then.split`]} />
                {d.arms.map((a, j) => (
                  <div className="filters" key={j}>
                    <TextField label={`Rule ${n} arm ${j + 1} destination`} type="url" value={a.destination} onChange={(e) => set(i, { arms: d.arms.map((x, k) => (k === j ? { ...x, destination: e.target.value } : x)) })} error={f[`${p}.then.split.${j}.destination`] ?? f[`${p}.then.split.${j}`]} disabled={!canEdit} />
                    <TextField label={`Rule ${n} arm ${j + 1} weight`} type="number" min={1} max={100} value={a.weight} onChange={(e) => set(i, { arms: d.arms.map((x, k) => (k === j ? { ...x, weight: e.target.value } : x)) })} error={f[`${p}.then.split.${j}.weight`]} disabled={!canEdit} />
                    {canEdit && d.arms.length > 2 && (
                      <div className="field">
                        <button type="button" className="button secondary" onClick={() => set(i, { arms: d.arms.filter((_, k) => k !== j) })}>
                          Remove arm {j + 1} of rule {n}
                        </button>
                      </div>
                    )}
                  </div>
                ))}
                {canEdit && d.arms.length < MAX_ARMS && (
                  <button type="button" className="button secondary" onClick={() => set(i, { arms: [...d.arms, { destination: '', weight: '50' }] })}>
                    Add an arm to rule {n}
                  </button>
                )}
              </>
            )}
            {canEdit && (
              <div className="actions">
                <button type="button" className="button secondary" data-move={`${i}:-1`} disabled={i === 0} onClick={() => move(i, -1)}>
                  Move rule {n} up
                </button>
                <button type="button" className="button secondary" data-move={`${i}:1`} disabled={i === drafts.length - 1} onClick={() => move(i, 1)}>
                  Move rule {n} down
                </button>
                <button type="button" className="button danger" onClick={() => setDrafts((ds) => ds.filter((_, j) => j !== i))}>
                  Remove rule {n}
                </button>
              </div>
            )}
          </fieldset>
        );
      })}
      {canEdit && (
        <div className="actions">
          <button type="button" className="button secondary" disabled={drafts.length >= MAX_RULES} onClick={() => setDrafts((ds) => [...ds, emptyRule()])}>
            Add a rule
          </button>
          <button type="submit" className="button" disabled={busy}>
            {busy ? 'Saving…' : 'Save rules'}
          </button>
        </div>
      )}
    </form>
  );
}

function Choices({ legend, values, chosen, onChange, error, disabled }: { legend: string; values: readonly string[]; chosen: string[]; onChange: (v: string[]) => void; error?: string; disabled?: boolean }) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      <div className="filters">
        {values.map((v) => (
          <CheckboxField key={v} label={v} checked={chosen.includes(v)} disabled={disabled} onChange={(e) => onChange(e.target.checked ? [...chosen, v] : chosen.filter((x) => x !== v))} />
        ))}
      </div>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

function RuleTester({ codeId }: { codeId: string }) {
  const [facts, setFacts] = useState({ country: '', region: '', device: '', os: '', language: '', at: '', scan_number: '' });
  const [result, setResult] = useState<Schemas['RuleTestResultDto'] | null>(null);
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const test = async (e: FormEvent) => {
    e.preventDefault();
    setErrors({ fields: {} });
    setResult(null);
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(facts)) if (v.trim()) body[k] = k === 'scan_number' && /^\d+$/.test(v.trim()) ? Number(v) : v.trim();
    try {
      setResult(await rawJson<Schemas['RuleTestResultDto']>(`/v1/qr-codes/${encodeURIComponent(codeId)}/rules/test`, { method: 'POST', json: body }));
    } catch (err) {
      setErrors(fieldErrors(err, Object.keys(facts)));
    }
  };
  const set = (k: keyof typeof facts) => (e: { target: { value: string } }) => setFacts({ ...facts, [k]: e.target.value });
  return (
    <form onSubmit={(e) => void test(e)} aria-labelledby="tester-h" className="section" noValidate>
      <h2 id="tester-h">Rule tester</h2>
      <p className="hint">What a scan with these facts would get (of the saved rules); nothing is counted.</p>
      <div className="filters">
        <TextField label="Country" hint="e.g. FR" value={facts.country} onChange={set('country')} error={errors.fields.country} />
        <TextField label="Region" hint="e.g. FR-IDF" value={facts.region} onChange={set('region')} error={errors.fields.region} />
        <SelectField label="Device" value={facts.device} onChange={set('device')} options={[{ value: '', label: 'Any / unknown' }, ...DEVICES.map((v) => ({ value: v, label: v }))]} error={errors.fields.device} />
        <SelectField label="Operating system" value={facts.os} onChange={set('os')} options={[{ value: '', label: 'Any / unknown' }, ...OSES.map((v) => ({ value: v, label: v }))]} error={errors.fields.os} />
        <TextField label="Language" hint="e.g. fr-CA" value={facts.language} onChange={set('language')} error={errors.fields.language} />
        <TextField label="At" hint="RFC 3339; default now" value={facts.at} onChange={set('at')} error={errors.fields.at} />
        <TextField label="Scan number" type="number" min={1} value={facts.scan_number} onChange={set('scan_number')} error={errors.fields.scan_number} />
      </div>
      <FormError message={errors.general} />
      <button type="submit" className="button secondary">
        Test the rules
      </button>
      <div role="status" aria-live="polite">
        {result &&
          (result.rule_id === null ? (
            <p>No rule matches: the default URL, {result.destination}.</p>
          ) : result.split ? (
            <p>
              Rule {result.rule_id} matches: a split, {result.split.map((a, i) => `arm ${i + 1} ${a.destination} (weight ${a.weight})`).join(', ')}.
            </p>
          ) : (
            <p>
              Rule {result.rule_id} matches: {result.destination}.
            </p>
          ))}
      </div>
    </form>
  );
}
