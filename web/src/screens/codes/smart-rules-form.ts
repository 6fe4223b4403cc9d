/** A smart-URL rule as the API takes it, and the flat draft the rules form edits. */
export interface ApiRule {
  id?: string;
  name?: string;
  if?: {
    country?: string[];
    region?: string[];
    language?: string[];
    device?: string[];
    os?: string[];
    time?: { days?: string[]; from?: string; to?: string; timezone?: string };
    date?: { from?: string; to?: string };
    scans?: { from?: number; to?: number };
  };
  then: { destination: string } | { split: Array<{ destination: string; weight: number }> };
}

export interface RuleDraft {
  id?: string;
  name: string;
  country: string;
  region: string;
  language: string;
  device: string[];
  os: string[];
  timeOn: boolean;
  days: string[];
  timeFrom: string;
  timeTo: string;
  timezone: string;
  dateFrom: string;
  dateTo: string;
  scansFrom: string;
  scansTo: string;
  mode: 'destination' | 'split';
  destination: string;
  arms: Array<{ destination: string; weight: string }>;
}

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const DEVICES = ['mobile', 'tablet', 'desktop'] as const;
export const OSES = ['ios', 'android', 'windows', 'macos', 'linux', 'other'] as const;

const list = (s: string) => s.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

export function emptyRule(): RuleDraft {
  return { name: '', country: '', region: '', language: '', device: [], os: [], timeOn: false, days: [], timeFrom: '', timeTo: '', timezone: 'UTC', dateFrom: '', dateTo: '', scansFrom: '', scansTo: '', mode: 'destination', destination: '', arms: [{ destination: '', weight: '50' }, { destination: '', weight: '50' }] };
}

export function toDraft(r: ApiRule): RuleDraft {
  const c = r.if ?? {};
  const d = emptyRule();
  return {
    ...d,
    id: r.id,
    name: r.name ?? '',
    country: (c.country ?? []).join(', '),
    region: (c.region ?? []).join(', '),
    language: (c.language ?? []).join(', '),
    device: c.device ?? [],
    os: c.os ?? [],
    timeOn: Boolean(c.time),
    days: c.time?.days ?? [],
    timeFrom: c.time?.from ?? '',
    timeTo: c.time?.to ?? '',
    timezone: c.time?.timezone ?? 'UTC',
    dateFrom: c.date?.from ?? '',
    dateTo: c.date?.to ?? '',
    scansFrom: c.scans?.from !== undefined ? String(c.scans.from) : '',
    scansTo: c.scans?.to !== undefined ? String(c.scans.to) : '',
    mode: 'split' in r.then ? 'split' : 'destination',
    destination: 'destination' in r.then ? r.then.destination : '',
    arms: 'split' in r.then ? r.then.split.map((a) => ({ destination: a.destination, weight: String(a.weight) })) : d.arms,
  };
}

/** A number field as the API should see it: a number when it reads as one, else the text (so the API names it). */
const num = (s: string): number | string => (/^\s*-?\d+(\.\d+)?\s*$/.test(s) ? Number(s) : s);

export function fromDraft(d: RuleDraft): ApiRule {
  const c: NonNullable<ApiRule['if']> = {};
  if (list(d.country).length) c.country = list(d.country);
  if (list(d.region).length) c.region = list(d.region);
  if (list(d.language).length) c.language = list(d.language);
  if (d.device.length) c.device = d.device;
  if (d.os.length) c.os = d.os;
  if (d.timeOn) {
    c.time = { timezone: d.timezone };
    if (d.days.length) c.time.days = d.days;
    if (d.timeFrom) c.time.from = d.timeFrom;
    if (d.timeTo) c.time.to = d.timeTo;
  }
  if (d.dateFrom || d.dateTo) c.date = { ...(d.dateFrom ? { from: d.dateFrom } : {}), ...(d.dateTo ? { to: d.dateTo } : {}) };
  if (d.scansFrom || d.scansTo) c.scans = { ...(d.scansFrom ? { from: num(d.scansFrom) as number } : {}), ...(d.scansTo ? { to: num(d.scansTo) as number } : {}) };
  const rule: ApiRule = {
    ...(d.id ? { id: d.id } : {}),
    ...(d.name.trim() ? { name: d.name.trim() } : {}),
    if: c,
    then: d.mode === 'split' ? { split: d.arms.map((a) => ({ destination: a.destination.trim(), weight: num(a.weight) as number })) } : { destination: d.destination.trim() },
  };
  return rule;
}

/** Every field name the rules form shows (dotted, as fieldErrors normalizes `rules[2].if.time.timezone`). */
export function ruleFieldNames(drafts: RuleDraft[]): string[] {
  const out = ['default_url', 'rules'];
  drafts.forEach((d, i) => {
    const p = `rules.${i}`;
    out.push(p, `${p}.name`, `${p}.if`, `${p}.then`, `${p}.then.destination`, `${p}.then.split`);
    for (const k of ['country', 'region', 'language', 'device', 'os', 'date', 'scans', 'time', 'time.timezone', 'time.from', 'time.to', 'time.days', 'date.from', 'date.to', 'scans.from', 'scans.to']) out.push(`${p}.if.${k}`);
    d.arms.forEach((_, j) => out.push(`${p}.then.split.${j}`, `${p}.then.split.${j}.destination`, `${p}.then.split.${j}.weight`));
  });
  return out;
}
