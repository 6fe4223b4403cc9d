/** Static payload encoders (docs/targets.md, "static payload"): what a static code's symbol holds. Pure functions. */
import { mailtoHref, type EmailFields, type EventFields, type VCardFields } from '../hosted-pages/mailto';

export type { EmailFields, EventFields, VCardFields };

/** WIFI: `\ ; , : "` are escaped with a backslash. */
export function escapeWifi(s: string): string {
  return s.replace(/([\\;,:"])/g, '\\$1');
}

export type WifiFields = {
  ssid: string;
  password?: string | null;
  encryption: 'WPA' | 'WEP' | 'nopass';
  hidden?: boolean;
};

export function wifiPayload(w: WifiFields): string {
  const password = w.encryption === 'nopass' ? '' : (w.password ?? '');
  return `WIFI:T:${w.encryption};S:${escapeWifi(w.ssid)};P:${escapeWifi(password)};${w.hidden ? 'H:true;' : ''};`;
}

/** RFC 6068 (the same `mailto:` URI the hosted pages link to). */
export const mailtoPayload = (e: EmailFields): string => mailtoHref(e);

export function smsPayload(s: { phone: string; message?: string }): string {
  return `SMSTO:${s.phone}:${s.message ?? ''}`;
}

export function geoPayload(l: { lat: number; lng: number }): string {
  return `geo:${l.lat},${l.lng}`;
}

/** RFC 6350 / 5545 TEXT escaping: backslash, semicolon, comma, newline. */
export function escapeText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds a content line at 75 octets (CRLF + one space), never inside a UTF-8 character. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    const limit = out.length === 0 ? 75 : 74; // continuation lines start with a space
    if (octets + size > limit) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

function contentLines(lines: Array<string | undefined>): string {
  return lines
    .filter((l): l is string => l !== undefined)
    .map(foldLine)
    .join('\r\n');
}

/** A value written into a content line as is (not as escaped text): a stored line break must not start a property. */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, '');

/** vCard 3.0 (RFC 2426) with CRLF line breaks and 75-octet folding. */
export function vcardPayload(v: VCardFields): string {
  const parts = v.your_name.trim().split(/\s+/);
  const family = parts.length > 1 ? parts[parts.length - 1] : parts[0];
  const given = parts.length > 1 ? parts.slice(0, -1).join(' ') : '';
  return contentLines([
    'BEGIN:VCARD',
    'VERSION:3.0',
    `N:${escapeText(family)};${escapeText(given)};;;`,
    `FN:${escapeText(v.your_name)}`,
    v.company_name ? `ORG:${escapeText(v.company_name)}` : undefined,
    v.position ? `TITLE:${escapeText(v.position)}` : undefined,
    v.phone_mobile ? `TEL;TYPE=CELL:${oneLine(v.phone_mobile)}` : undefined,
    v.phone_work ? `TEL;TYPE=WORK,VOICE:${oneLine(v.phone_work)}` : undefined,
    v.email ? `EMAIL;TYPE=INTERNET:${oneLine(v.email)}` : undefined,
    v.website ? `URL:${oneLine(v.website)}` : undefined,
    v.address ? `ADR;TYPE=WORK:;;${escapeText(v.address)};;;;` : undefined,
    v.note ? `NOTE:${escapeText(v.note)}` : undefined,
    'END:VCARD',
  ]);
}

/** 20260501T180000Z */
export function icalDateTime(iso: string): string {
  return new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** iCalendar VEVENT (RFC 5545 text escaping and folding), the compact form QR scanners read. */
export function veventPayload(e: EventFields): string {
  return contentLines([
    'BEGIN:VEVENT',
    `SUMMARY:${escapeText(e.title)}`,
    `DTSTART:${icalDateTime(e.start)}`,
    `DTEND:${icalDateTime(e.end)}`,
    e.location ? `LOCATION:${escapeText(e.location)}` : undefined,
    e.description ? `DESCRIPTION:${escapeText(e.description)}` : undefined,
    'END:VEVENT',
  ]);
}
