import { gs1CheckCharacters, hasValidCheckDigit } from './check-digits';
import type { Gs1Code } from './gs1.error';

/** A content rule of the Syntax Dictionary ("linter"): returns why `part` fails, or null. */
type Linter = (part: string) => { code: Gs1Code; reason: string } | null;

const format = (reason: string) => ({ code: 'GS1_VALUE_FORMAT' as const, reason });
const check = (ok: boolean, reason: string) => (ok ? null : format(reason));
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Month 01–12; day 01–last (or 00 when `zeroDay`). Two-digit years: leap when divisible by 4, since GS1's
 * sliding 100-year window around today (1976–2075) holds no century year other than 2000. */
function validDate(yyyy: number, mm: number, dd: number, zeroDay: boolean): boolean {
  if (mm < 1 || mm > 12) return false;
  const leap = yyyy % 4 === 0 && (yyyy % 100 !== 0 || yyyy % 400 === 0);
  const last = mm === 2 && !leap ? 28 : DAYS[mm - 1];
  return (zeroDay && dd === 0) || (dd >= 1 && dd <= last);
}
const yymmdd = (zeroDay: boolean): Linter => (p) =>
  check(/^\d{6}$/.test(p) && validDate(2000 + Number(p.slice(0, 2)), Number(p.slice(2, 4)), Number(p.slice(4, 6)), zeroDay),
    zeroDay ? 'is not a date YYMMDD (DD may be 00)' : 'is not a date YYMMDD');
const upTo = (max: number, what: string): Linter => (p) => check(/^\d+$/.test(p) && Number(p) <= max, `is not ${what}`);
const digits = (re: RegExp, what: string): Linter => (p) => check(re.test(p), `is not ${what}`);

function ibanValid(p: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Za-z0-9]{1,30}$/.test(p)) return false;
  const moved = (p.slice(4) + p.slice(0, 4)).toUpperCase();
  let rest = 0;
  for (const ch of moved) {
    const n = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of n) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/**
 * Linters checked here. Those whose reference implementation needs a code list we do not ship (ISO 3166 and
 * ISO 4217 numeric codes, UN/ECE package types, AIDC media types, coupon structures) check the structure only:
 * the component's type and length, which the dictionary already gives, and the shape below.
 */
const LINTERS: Record<string, Linter> = {
  csum: (p) => (hasValidCheckDigit(p) ? null : { code: 'GS1_CHECK_DIGIT', reason: 'has a wrong check digit' }),
  csumalpha: (p) =>
    p.length >= 3 && gs1CheckCharacters(p.slice(0, -2)) === p.slice(-2)
      ? null
      : { code: 'GS1_CHECK_DIGIT', reason: 'has wrong check characters' },
  // A GS1 Company Prefix has at least 4 digits and starts at position 1 (or 2, after an indicator digit).
  gcppos1: digits(/^\d{4}/, 'a value starting with a GS1 Company Prefix'),
  gcppos2: digits(/^\d\d{4}/, 'a value with a GS1 Company Prefix from position 2'),
  yymmd0: yymmdd(true),
  yymmdd: yymmdd(false),
  yyyymmdd: (p) => check(/^\d{8}$/.test(p) && validDate(Number(p.slice(0, 4)), Number(p.slice(4, 6)), Number(p.slice(6, 8)), false), 'is not a date YYYYMMDD'),
  hhmi: (p) => check(/^\d{4}$/.test(p) && Number(p.slice(0, 2)) <= 23 && Number(p.slice(2)) <= 59, 'is not a time HHMM'),
  hh: upTo(23, 'an hour 00–23'),
  mi: upTo(59, 'a minute 00–59'),
  ss: upTo(59, 'a second 00–59'),
  iso3166: digits(/^\d{3}$/, 'an ISO 3166 numeric country code'),
  iso3166999: digits(/^\d{3}$/, 'an ISO 3166 numeric country code or 999'),
  iso3166alpha2: digits(/^[A-Z]{2}$/, 'an ISO 3166 alpha-2 country code'),
  iso4217: digits(/^\d{3}$/, 'an ISO 4217 numeric currency code'),
  iso5218: digits(/^[0129]$/, 'an ISO 5218 sex code (0, 1, 2 or 9)'),
  mediatype: (p) => check(/^\d{2}$/.test(p) && p !== '00', 'an AIDC media type'),
  packagetype: digits(/^[0-9A-Z]{1,4}$/, 'a package type code'),
  couponcode: digits(/^\d+$/, 'a coupon code'),
  couponposoffer: digits(/^\d+$/, 'a coupon offer code'),
  pcenc: (p) => check(!/%(?![0-9A-Fa-f]{2})/.test(p), 'has a malformed percent-encoding'),
  nonzero: (p) => check(/[1-9]/.test(p), 'must not be zero'),
  zero: (p) => check(p === '0', 'must be 0'),
  yesno: digits(/^[01]$/, '0 or 1'),
  winding: digits(/^[019]$/, 'a winding direction (0, 1 or 9)'),
  hyphen: (p) => check(p === '-', 'must be a hyphen'),
  pieceoftotal: (p) => {
    const piece = Number(p.slice(0, 2));
    const total = Number(p.slice(2, 4));
    return check(/^\d{4}$/.test(p) && piece >= 1 && total >= 1 && piece <= total, 'is not a piece number NN of a total NN');
  },
  nozeroprefix: (p) => check(p === '0' || !p.startsWith('0'), 'must not start with 0'),
  hasnondigit: (p) => check(/\D/.test(p), 'must contain a non-digit'),
  latitude: upTo(1800000000, 'a latitude'),
  longitude: upTo(3600000000, 'a longitude'),
  posinseqslash: (p) => {
    const m = /^([1-9])\/([1-9])$/.exec(p);
    return check(!!m && Number(m[1]) <= Number(m[2]), 'is not a position N/M');
  },
  importeridx: digits(/^[-0-9A-Za-z_]$/, 'an importer index'),
  iban: (p) => check(ibanValid(p), 'is not a valid IBAN'),
};

export function isKnownLinter(name: string): boolean {
  return Object.hasOwn(LINTERS, name);
}

export function runLinter(name: string, part: string): { code: Gs1Code; reason: string } | null {
  return LINTERS[name](part);
}
