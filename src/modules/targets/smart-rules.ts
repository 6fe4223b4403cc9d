import ISO6391 from 'iso-639-1';
import { randomBase62 } from '../../common/ids';
import { type FieldReader, headerSafeUrl } from './fields';
import { ISO_3166_1_ALPHA2, ISO_3166_2 } from './iso-3166-data';

/**
 * Smart-URL redirect rules (docs/smart-urls.md): validation of the request shape, and a pure compiler whose decider
 * both the scan host (compiled once per cache fill) and the rule tester (`POST /qr-codes/{id}/rules/test`) run.
 * No I/O, no clock or randomness of its own: the caller passes the time and the random draw.
 */

export const MAX_RULES = 20;
export const MAX_ARMS = 10;
export const DEVICES = ['mobile', 'tablet', 'desktop'] as const;
export const OSES = ['ios', 'android', 'windows', 'macos', 'linux', 'other'] as const;
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const CONDITIONS = ['country', 'region', 'device', 'os', 'language', 'time', 'date', 'scans'];
export const RULE_ID = /^rul_[0-9A-Za-z]{16,40}$/;

export interface SplitArm {
  destination: string;
  weight: number;
}
export interface RuleConditions {
  country?: string[];
  region?: string[];
  device?: string[];
  os?: string[];
  language?: string[];
  time?: { days: string[]; from: string; to: string; timezone: string };
  date?: { from: string | null; to: string | null };
  scans?: { from: number | null; to: number | null };
}
export interface StoredRule {
  id: string;
  name: string | null;
  if: RuleConditions;
  then: { destination: string } | { split: SplitArm[] };
}
export interface SmartTarget {
  default_url: string;
  rules: StoredRule[];
}

/** What is known about one scan. Null facts match no condition on them. */
export interface VisitorFacts {
  /** ISO 3166-1 alpha-2, upper case */
  country: string | null;
  /** ISO 3166-2 (`US-CA`), upper case */
  region: string | null;
  device: 'mobile' | 'tablet' | 'desktop' | null;
  os: (typeof OSES)[number] | null;
  /** the first Accept-Language preference, lower case (`fr-ca`) */
  language: string | null;
  /** epoch milliseconds */
  at: number;
  /** the scan number of this code, 1-based */
  scanNumber: number | null;
}

export interface Decision {
  /** null: no rule matched, the default URL */
  ruleId: string | null;
  /** the split arm drawn, or null */
  arm: number | null;
  location: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation

const newRuleId = (): string => `rul_${randomBase62(20)}`;

function list(r: FieldReader, key: string, check: (v: string) => string | null, what: string): string[] | undefined {
  const values = r.input[key];
  if (values === undefined) return undefined;
  if (!Array.isArray(values) || values.length === 0) r.fail(key, `must be a non-empty array of ${what}`);
  if (values.length > 300) r.fail(key, 'must have at most 300 values');
  const out = new Set<string>();
  values.forEach((x, i) => {
    const norm = typeof x === 'string' ? check(x.trim()) : null;
    if (norm === null) r.fail(`${key}[${i}]`, `must be ${what} (got ${JSON.stringify(x)})`);
    out.add(norm);
  });
  return [...out];
}

/** ISO 3166-1 alpha-2, plus `XK` (Kosovo: a user-assigned code, not in ISO 3166-1, that GeoLite2 reports for its
 * addresses, so a rule can target it). */
const COUNTRIES: ReadonlySet<string> = new Set([...ISO_3166_1_ALPHA2, 'XK']);
const country = (v: string): string | null => (COUNTRIES.has(v.toUpperCase()) ? v.toUpperCase() : null);
const region = (v: string): string | null => (ISO_3166_2.has(v.toUpperCase()) ? v.toUpperCase() : null);
const among =
  (values: readonly string[]) =>
  (v: string): string | null =>
    values.includes(v.toLowerCase()) ? v.toLowerCase() : null;
/** A BCP 47 language tag whose primary subtag is ISO 639-1 (`fr`, `fr-CA`, `zh-Hant-TW`), in its canonical case
 * (`fr-ca` → `fr-CA`, `ZH-hant` → `zh-Hant`); rules match it case-insensitively. */
function language(v: string): string | null {
  if (!/^[A-Za-z]{2}(-[A-Za-z0-9]{1,8})*$/.test(v)) return null;
  if (!ISO6391.validate(v.slice(0, 2).toLowerCase())) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(v);
    // Only the case changes: a tag Intl would rewrite otherwise (a deprecated or extended form) is kept as sent.
    return canonical && canonical.toLowerCase() === v.toLowerCase() ? canonical : v.toLowerCase();
  } catch {
    return null; // not well-formed BCP 47 (a repeated variant, a lone singleton)
  }
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * The IANA time zone names without a `/` (tzdata's `backward` links and legacy zones). ICU also accepts abbreviations
 * such as `PST`, `IST` or `CTT` that are not IANA names (and mean different zones to different people): those are
 * refused.
 */
const IANA_SINGLE_NAMES = new Set(
  ('CET CST6CDT Cuba EET EST EST5EDT Egypt Eire GB GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich HST Hongkong Iceland Iran ' +
    'Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo PRC PST8PDT Poland Portugal ROC ROK ' +
    'Singapore Turkey UCT UTC Universal W-SU WET Zulu').split(' '),
);

/**
 * IANA names ICU accepts but does not list (tzdata's `backward` links and the `Etc` zones) whose spelling is not each
 * word capitalized: `US/Eastern`, `Etc/GMT+5`, `Australia/NSW`, … (tz database, public domain).
 */
const IRREGULAR_ZONE_NAMES = [
  'America/Argentina/ComodRivadavia', 'America/Knox_IN', 'Australia/ACT', 'Australia/LHI', 'Australia/NSW',
  'Brazil/DeNoronha', 'Chile/EasterIsland', 'Mexico/BajaNorte', 'Mexico/BajaSur',
  'Etc/GMT', 'Etc/GMT+0', 'Etc/GMT-0', 'Etc/GMT0', 'Etc/UCT', 'Etc/UTC',
  ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${i + 1}`), ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`),
  ...'Alaska Aleutian Arizona Central East-Indiana Eastern Hawaii Indiana-Starke Michigan Mountain Pacific Pacific-New Samoa'
    .split(' ').map((z) => `US/${z}`),
];

/** Lower-case IANA name → its spelling, for the zones this Node's ICU lists and the irregular links above (ICU accepts
 * any case; stored rules keep the IANA spelling). */
let ZONE_SPELLING: Map<string, string> | undefined;
/**
 * `zone` in its IANA spelling (`europe/paris` → `Europe/Paris`): the listed spelling when ICU lists the zone; for a
 * name ICU knows only as a link (it lists `Asia/Calcutta`, not `Asia/Kolkata`), each word capitalized after `/` and
 * `_` or `-` when the name is all one case (the links' spelling: `Asia/Kolkata`, `Europe/Kyiv`, `America/Nuuk`), else as
 * given.
 */
export function timeZoneSpelling(zone: string): string {
  ZONE_SPELLING ??= new Map([...IRREGULAR_ZONE_NAMES, ...Intl.supportedValuesOf('timeZone'), ...IANA_SINGLE_NAMES].map((z) => [z.toLowerCase(), z]));
  const listed = ZONE_SPELLING.get(zone.toLowerCase());
  if (listed) return listed;
  if (zone !== zone.toLowerCase() && zone !== zone.toUpperCase()) return zone;
  return zone.toLowerCase().replace(/(^|[/_-])([a-z])/g, (_, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** Whether `zone` is an IANA time zone name (`Area/Location`, `Etc/…`, or one of IANA_SINGLE_NAMES) that this Node
 * knows (Intl throws a RangeError otherwise). */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return false;
  if (zone.includes('/') ? zone.toLowerCase().startsWith('systemv/') : !IANA_SINGLE_NAMES.has(timeZoneSpelling(zone))) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A condition given as null is refused like a value of the wrong type (an omitted key is no condition; the lists refuse
 * null as not a non-empty array). Inside `time`, `date` and `scans` a null bound is an omitted one: the stored rules
 * (and so GET, sent back through PUT …/content) carry open bounds as null. */
function conditions(r: FieldReader): RuleConditions {
  r.only(CONDITIONS);
  const out: RuleConditions = {};
  const c = list(r, 'country', country, 'ISO 3166-1 alpha-2 country codes such as "FR"');
  if (c) out.country = c;
  const reg = list(r, 'region', region, 'ISO 3166-2 region codes such as "US-CA"');
  if (reg) out.region = reg;
  const d = list(r, 'device', among(DEVICES), `one of ${DEVICES.join(', ')}`);
  if (d) out.device = d;
  const o = list(r, 'os', among(OSES), `one of ${OSES.join(', ')}`);
  if (o) out.os = o;
  const l = list(r, 'language', language, 'BCP 47 language tags with an ISO 639-1 language, such as "fr" or "fr-CA"');
  if (l) out.language = l;
  const t = r.object('time', { nullable: false });
  if (t) {
    t.only(['days', 'from', 'to', 'timezone']);
    const days = list(t, 'days', among(DAYS), `days of the week (${DAYS.join(', ')})`);
    // HH:MM each; an omitted `from` or `to` is 00:00 (midnight), so without both the window is each whole day of `days`
    // (every day when `days` is omitted too: the dashboard's "only at certain times" before a window is chosen).
    const hhmm = (key: string): string | undefined => {
      const v = t.input[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string' || !HHMM.test(v)) return t.fail(key, 'must be a time from 00:00 to 23:59 (HH:MM)');
      return v;
    };
    const from = hhmm('from');
    const to = hhmm('to');
    const timezone = t.string('timezone', { required: true, max: 64 })!;
    if (!isTimeZone(timezone)) t.fail('timezone', 'must be an IANA time zone such as "Europe/Paris"');
    out.time = { days: days ? DAYS.filter((day) => days.includes(day)) : [...DAYS], from: from ?? '00:00', to: to ?? '00:00', timezone: timeZoneSpelling(timezone) };
  }
  const date = r.object('date', { nullable: false });
  if (date) {
    date.only(['from', 'to']);
    const from = date.rfc3339('from') ?? null;
    const to = date.rfc3339('to') ?? null;
    if (from && to && Date.parse(from) > Date.parse(to)) date.fail('from', `must not be after ${date.field('to')}`);
    out.date = { from, to };
  }
  const scans = r.object('scans', { nullable: false });
  if (scans) {
    scans.only(['from', 'to']);
    const int = (key: string): number | null => scans.integer(key, { min: 1, max: 1_000_000_000 }) ?? null;
    const from = int('from');
    const to = int('to');
    if (from !== null && to !== null && from > to) scans.fail('from', `must not be greater than ${scans.field('to')}`);
    out.scans = { from, to };
  }
  return out;
}

function then(r: FieldReader): StoredRule['then'] {
  r.only(['destination', 'split']);
  if (r.has('destination') && r.has('split')) r.fail('split', `cannot be given with ${r.field('destination')}`);
  if (r.has('destination')) return { destination: r.url('destination', { required: true })! };
  const arms = r.array('split', { min: 1, max: MAX_ARMS });
  if (!arms) r.fail('destination', 'or a split is required');
  return {
    split: arms.map((a) => {
      a.only(['destination', 'weight']);
      const weight = a.integer('weight', { required: true, min: 1, max: 100 })!;
      return { destination: a.url('destination', { required: true })!, weight };
    }),
  };
}

/**
 * `default_url` and `rules` of a smart-URL target (creation and `PUT …/content`). A rule keeps the `id` it is sent
 * with (so editing one rule leaves the others' ids, and their analytics, alone); a rule without one gets a new `rul_…`.
 * Ids are the server's: keepRuleIds then replaces every id the code does not have yet.
 */
export function parseSmartTarget(r: FieldReader): SmartTarget {
  const defaultUrl = r.url('default_url', { required: true })!;
  const rules = r.array('rules', { max: MAX_RULES }) ?? [];
  const ids = new Set<string>();
  return {
    default_url: defaultUrl,
    rules: rules.map((rule) => {
      rule.only(['id', 'name', 'if', 'then']);
      let id = rule.string('id', { max: 44 });
      if (id !== undefined) {
        if (!RULE_ID.test(id)) rule.fail('id', 'must be a rul_… id (omit it for a new rule)');
        if (ids.has(id)) rule.fail('id', `repeats '${id}'`);
      } else id = newRuleId();
      ids.add(id);
      const cond = rule.object('if', { nullable: false });
      return {
        id,
        name: rule.string('name', { max: 100 }) ?? null,
        if: cond ? conditions(cond) : {},
        then: then(rule.object('then', { required: true })!),
      };
    }),
  };
}

/**
 * The rules to store: an id that is not one of the code's current rules (`current`: its stored target on `PUT …/content`,
 * none on creation) is replaced by a new `rul_…`, so an id is never made up by a client nor shared with another
 * code's rule (analytics report scans by rule id).
 */
export function keepRuleIds(target: SmartTarget, current: Partial<SmartTarget> | undefined): SmartTarget {
  const known = new Set((Array.isArray(current?.rules) ? current.rules : []).map((r) => r.id));
  return { ...target, rules: target.rules.map((r) => (known.has(r.id) ? r : { ...r, id: newRuleId() })) };
}

// ---------------------------------------------------------------------------------------------------------------
// Compiler

type Test = (f: VisitorFacts) => boolean;

const DAY_INDEX: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The local weekday and minute of the day in one zone. Intl is slow (a few µs), so the zone's offset is kept for the
 * UTC minute it was computed in: offsets change only on whole minutes, so every scan of that minute is exact.
 */
export class ZoneClock {
  private readonly format: Intl.DateTimeFormat;
  private minute = Number.NaN;
  private offsetMinutes = 0;

  constructor(readonly timezone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  }

  /** [weekday 0 = Sunday, minute of the local day] at `at` (epoch ms). */
  local(at: number): [number, number] {
    const utcMinute = Math.floor(at / 60_000);
    if (utcMinute !== this.minute) {
      const parts: Record<string, number> = {};
      for (const p of this.format.formatToParts(utcMinute * 60_000)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
      const localAsUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute);
      this.offsetMinutes = Math.round(localAsUtc / 60_000) - utcMinute;
      this.minute = utcMinute;
    }
    const local = utcMinute + this.offsetMinutes;
    const dayNumber = Math.floor(local / 1440);
    return [(((dayNumber + 4) % 7) + 7) % 7, local - dayNumber * 1440]; // 1970-01-01 was a Thursday
  }
}

/** A time window: `from` ≤ local time < `to` on one of `days`; `to` before `from` wraps midnight and belongs to the day
 * it starts on; `from` equal to `to` is the whole day. */
function timeTest(t: NonNullable<RuleConditions['time']>): Test {
  const clock = new ZoneClock(t.timezone);
  const days = new Array<boolean>(7).fill(false);
  for (const d of t.days) days[DAY_INDEX[d]] = true;
  const from = minutes(t.from);
  const to = minutes(t.to);
  return (f) => {
    const [day, minute] = clock.local(f.at);
    if (from === to) return days[day];
    if (from < to) return days[day] && minute >= from && minute < to;
    if (minute >= from) return days[day]; // the evening part: today's window
    return minute < to && days[(day + 6) % 7]; // after midnight: the window started yesterday
  };
}

function languageMatches(tags: readonly string[], lang: string | null): boolean {
  if (!lang) return false;
  for (const tag of tags) if (lang === tag || (lang.startsWith(tag) && lang.charCodeAt(tag.length) === 45)) return true; // `-`
  return false;
}

/** One bit per device and OS of the rule vocabulary: a rule's `device`/`os` lists become masks, a scan's facts bits. */
const DEVICE_BIT: Record<string, number> = Object.fromEntries(DEVICES.map((d, i) => [d, 1 << i]));
const OS_BIT: Record<string, number> = Object.fromEntries(OSES.map((o, i) => [o, 1 << i]));
/** No scan has this bit: a list with no known value (never stored by this version) matches nothing, as before. */
const NO_SCAN_BIT = 1 << 30;
const mask = (values: string[] | undefined, bits: Record<string, number>): number =>
  values ? values.reduce((m, v) => m | (bits[v] ?? 0), 0) || NO_SCAN_BIT : 0;

/**
 * A rule's conditions as plain data of one shape, so that matching a scan is one loop over same-shaped objects
 * (an array of per-condition closures made every call site megamorphic: it took twice as long to decide).
 * An absent condition is a flag of false, a mask of 0 or null: not tested.
 */
interface CompiledConditions {
  /** scan-number bounds; `scans` absent: false (the scan number is not looked at, unknown passes) */
  scans: boolean;
  scanFrom: number;
  scanTo: number;
  /** `date` given: the scan time must lie within the bounds */
  date: boolean;
  dateFrom: number;
  dateTo: number;
  /** DEVICE_BIT / OS_BIT masks; 0: no condition */
  devices: number;
  oses: number;
  countries: Set<string> | null;
  regions: Set<string> | null;
  languages: string[] | null;
  time: Test | null;
}

function compileConditions(c: RuleConditions): CompiledConditions {
  return {
    scans: c.scans !== undefined,
    scanFrom: c.scans?.from ?? 1,
    scanTo: c.scans?.to ?? Number.POSITIVE_INFINITY,
    date: c.date !== undefined,
    dateFrom: c.date?.from ? Date.parse(c.date.from) : Number.NEGATIVE_INFINITY,
    dateTo: c.date?.to ? Date.parse(c.date.to) : Number.POSITIVE_INFINITY,
    devices: mask(c.device, DEVICE_BIT),
    oses: mask(c.os, OS_BIT),
    countries: c.country ? new Set(c.country) : null,
    regions: c.region ? new Set(c.region) : null,
    languages: c.language ? c.language.map((l) => l.toLowerCase()) : null,
    time: c.time ? timeTest(c.time) : null,
  };
}

/** Whether every condition holds (cheapest and most selective first); `device` and `os` are the facts' bits. */
function holds(r: CompiledConditions, f: VisitorFacts, device: number, os: number): boolean {
  if (r.scans && (f.scanNumber === null || !(f.scanNumber >= r.scanFrom && f.scanNumber <= r.scanTo))) return false;
  if (r.date && !(f.at >= r.dateFrom && f.at <= r.dateTo)) return false;
  if (r.devices !== 0 && (r.devices & device) === 0) return false;
  if (r.oses !== 0 && (r.oses & os) === 0) return false;
  if (r.countries !== null && (f.country === null || !r.countries.has(f.country))) return false;
  if (r.regions !== null && (f.region === null || !r.regions.has(f.region))) return false;
  if (r.languages !== null && !languageMatches(r.languages, f.language)) return false;
  return r.time === null || r.time(f);
}

/** Which rule a scan with these facts matches (index, or -1 for the default). */
export type Matcher = (f: VisitorFacts) => number;
/** Which of a scan's facts a decider's rules look at. A fact no rule names need not be worked out for a scan: it may
 * be passed as null (the time, `at`, is always given). */
export interface FactNeeds {
  /** `device` and `os` (the user agent's facts) */
  userAgent: boolean;
  /** `country` and `region` */
  place: boolean;
  language: boolean;
  scanNumber: boolean;
}
/** The decision for a scan; `random` in [0, 1) draws a split's arm. `needs`: the facts it reads. */
export type Decider = ((f: VisitorFacts, random: () => number) => Decision) & { readonly needs: FactNeeds };

/** The facts these compiled rules test: read from the conditions `holds` checks, so the two cannot disagree. */
function needsOf(rules: readonly CompiledConditions[]): FactNeeds {
  return {
    userAgent: rules.some((r) => r.devices !== 0 || r.oses !== 0),
    place: rules.some((r) => r.countries !== null || r.regions !== null),
    language: rules.some((r) => r.languages !== null),
    scanNumber: rules.some((r) => r.scans),
  };
}

/** An arm drawn by weight: cumulative weights searched with one random number. */
function armPicker(arms: SplitArm[]): (random: () => number) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (const a of arms) cumulative.push((total += a.weight));
  return (random) => {
    const x = random() * total;
    for (let i = 0; i < cumulative.length; i++) if (x < cumulative[i]) return i;
    return cumulative.length - 1;
  };
}

const compileRules = (target: SmartTarget): CompiledConditions[] =>
  (Array.isArray(target.rules) ? target.rules : []).map((r) => compileConditions(r.if ?? {}));

/** The first matching rule's index, or -1. */
export function compileMatcher(target: SmartTarget): Matcher {
  return matcherOf(compileRules(target));
}

function matcherOf(rules: readonly CompiledConditions[]): Matcher {
  return (f) => {
    const device = f.device === null ? 0 : (DEVICE_BIT[f.device] ?? 0);
    const os = f.os === null ? 0 : (OS_BIT[f.os] ?? 0);
    for (let i = 0; i < rules.length; i++) if (holds(rules[i], f, device, os)) return i;
    return -1;
  };
}

/**
 * The scan host's decider of a stored smart-URL target: every condition, Location value and arm table is built here
 * once, so a scan runs only comparisons. Unusable URLs (not http/https) fall back to the default.
 */
export function compileSmartTarget(target: SmartTarget): Decider {
  const rules = compileRules(target);
  const match = matcherOf(rules);
  const fallback = headerSafeUrl(String(target.default_url)) ?? '';
  const outcomes = (Array.isArray(target.rules) ? target.rules : []).map((r) => {
    if ('split' in r.then) {
      // One decision per arm, built here: a scan only draws its index.
      const arms: Decision[] = r.then.split.map((a, arm) => ({ ruleId: r.id, arm, location: headerSafeUrl(a.destination) ?? fallback }));
      const pick = armPicker(r.then.split);
      return (random: () => number): Decision => arms[pick(random)];
    }
    const decision: Decision = { ruleId: r.id, arm: null, location: headerSafeUrl(r.then.destination) ?? fallback };
    return () => decision;
  });
  const byDefault: Decision = { ruleId: null, arm: null, location: fallback };
  const decide = (f: VisitorFacts, random: () => number): Decision => {
    const i = match(f);
    return i < 0 ? byDefault : outcomes[i](random);
  };
  return Object.assign(decide, { needs: needsOf(rules) });
}

/** The rule tester's answer: the matched rule with its destination, or its split and the arms a scan may get. */
export function explain(target: SmartTarget, f: VisitorFacts): Record<string, unknown> {
  const i = compileMatcher(target)(f);
  if (i < 0) return { rule_id: null, destination: target.default_url };
  const rule = target.rules[i];
  if ('split' in rule.then) {
    return { rule_id: rule.id, split: rule.then.split.map((a) => ({ destination: a.destination, weight: a.weight })), arm_candidates: rule.then.split.map((_, n) => n) };
  }
  return { rule_id: rule.id, destination: rule.then.destination };
}

/** The target's summary: rule count and how many of them split. */
export function smartSummary(target: SmartTarget): { rules: number; splits: number } {
  const rules = Array.isArray(target.rules) ? target.rules : [];
  return { rules: rules.length, splits: rules.filter((r) => 'split' in r.then).length };
}

/**
 * The rule tester's body (`POST /qr-codes/{id}/rules/test`): the facts of an imagined scan. Omitted facts are
 * unknown (a condition on them does not match), `at` defaults to now and `scan_number` to the code's next scan.
 */
export function parseTestFacts(r: FieldReader, nextScan: number, now = Date.now()): VisitorFacts {
  r.only(['country', 'region', 'device', 'os', 'language', 'at', 'scan_number']);
  // null or omitted: unknown; anything else (an empty string too) must be a valid value.
  const one = (key: string, check: (v: string) => string | null, what: string): string | null => {
    const v = r.input[key];
    if (v === undefined || v === null) return null;
    const norm = typeof v === 'string' && v.length <= 40 ? check(v.trim()) : null;
    if (norm === null) r.fail(key, `must be ${what}`);
    return norm;
  };
  const scanNumber = r.integer('scan_number', { min: 1, max: 1_000_000_000 });
  const regionCode = one('region', region, 'an ISO 3166-2 region code such as "US-CA"');
  const at = r.rfc3339('at');
  const countryCode = one('country', country, 'an ISO 3166-1 alpha-2 country code such as "FR"');
  if (countryCode && regionCode && !regionCode.startsWith(`${countryCode}-`)) r.fail('region', `must be a region of ${r.field('country')} (${countryCode})`);
  return {
    country: countryCode ?? (regionCode ? regionCode.slice(0, 2) : null),
    region: regionCode,
    device: one('device', among(DEVICES), `one of ${DEVICES.join(', ')}`) as VisitorFacts['device'],
    os: one('os', among(OSES), `one of ${OSES.join(', ')}`) as VisitorFacts['os'],
    language: one('language', language, 'a BCP 47 language tag with an ISO 639-1 language, such as "fr-CA"')?.toLowerCase() ?? null,
    at: at ? Date.parse(at) : now,
    scanNumber: scanNumber ?? nextScan,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Facts from a request

/** ua-parser-js OS names → the rule vocabulary. */
export function osOf(name: string | null): VisitorFacts['os'] {
  if (!name) return null;
  if (name === 'iOS' || name === 'iPadOS') return 'ios';
  if (name === 'Android' || name === 'HarmonyOS') return 'android';
  if (name === 'Windows') return 'windows';
  if (name === 'macOS' || name === 'Mac OS') return 'macos';
  if (name === 'Linux' || name === 'Ubuntu' || name === 'Debian' || name === 'Fedora' || name === 'Chromium OS' || name === 'Arch' || name === 'Mint') return 'linux';
  return 'other';
}

/** enrich.ts device names → the rule vocabulary (consoles, TVs and the like: none of the three). */
export function deviceOf(name: string | null): VisitorFacts['device'] {
  return name === 'Mobile' ? 'mobile' : name === 'Tablet' ? 'tablet' : name === 'Desktop' ? 'desktop' : null;
}
