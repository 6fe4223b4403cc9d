import type { HostedResponse } from './hosted-response';
import { details, esc, linkButtons, page } from './layout';
import { mailtoHref, type EventFields, type VCardFields } from './mailto';

type Target = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s !== '') : []);

const WIFI_SECURITY: Record<string, string> = { WPA: 'WPA/WPA2', WEP: 'WEP', nopass: 'None (open network)' };

export function wifiPage(t: Target): HostedResponse | null {
  const ssid = str(t.ssid);
  if (!ssid) return null;
  const password = t.encryption === 'nopass' ? null : str(t.password);
  // No script may run, so there is no copy button: the password is selectable as a whole (user-select: all).
  const body = `<h1>Wi-Fi network</h1>
<p class="muted">Open your device's Wi-Fi settings and join this network.</p>
${details([
  ['Network name', `<span class="secret">${esc(ssid)}</span>`],
  ['Password', password ? `<span class="secret">${esc(password)}</span>` : null],
  ['Security', esc(WIFI_SECURITY[String(t.encryption)] ?? t.encryption)],
  ['Hidden network', t.hidden ? 'Yes: add it by its name' : null],
])}`;
  return page(200, `Wi-Fi: ${ssid}`, body);
}

export function textPage(t: Target): HostedResponse | null {
  const text = str(t.text);
  if (!text) return null;
  return page(200, 'Message', `<h1>Message</h1>\n<p class="text">${esc(text)}</p>`);
}

/** The card of a vcard target, or null when it has no name (the page and the `.vcf` download both read it). */
export function vcardFields(t: Target): VCardFields | null {
  const card = t.vcard;
  if (!card || typeof card !== 'object') return null;
  const c = card as Target;
  const yourName = str(c.your_name);
  if (!yourName) return null;
  const { company_name, position, email, phone_mobile, phone_work, website, address, note } = c;
  return {
    your_name: yourName,
    ...Object.fromEntries(Object.entries({ company_name, position, email, phone_mobile, phone_work, website, address, note }).flatMap(([k, v]) => (str(v) ? [[k, v]] : []))),
  };
}

/** `download`: the same-host path of the card's download (the handler names its suffix). */
export function vcardPage(t: Target, download: string): HostedResponse | null {
  const v = vcardFields(t);
  if (!v) return null;
  const role = [v.position, v.company_name].filter(Boolean).join(' · ');
  const body = `<h1>${esc(v.your_name)}</h1>
${role ? `<p class="muted">${esc(role)}</p>` : ''}
${linkButtons([
  { label: 'Add to contacts', download },
  { label: `Call mobile ${v.phone_mobile ?? ''}`, href: v.phone_mobile ? `tel:${v.phone_mobile}` : null, secondary: true },
  { label: `Call work ${v.phone_work ?? ''}`, href: v.phone_work ? `tel:${v.phone_work}` : null, secondary: true },
  { label: `E-mail ${v.email ?? ''}`, href: v.email ? mailtoHref({ email: v.email }) : null, secondary: true },
  { label: 'Website', href: v.website, secondary: true },
])}
${details([
  ['Address', v.address ? `<span class="text">${esc(v.address)}</span>` : null],
  ['Note', v.note ? `<span class="text">${esc(v.note)}</span>` : null],
])}`;
  return page(200, v.your_name, body);
}

/** The event of an event target, or null when it lacks a title or valid times (the page and the `.ics` download). */
export function eventFields(t: Target): EventFields | null {
  const title = str(t.title);
  const start = str(t.start);
  const end = str(t.end);
  if (!title || !start || !end || Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) return null;
  return { title, start, end, location: str(t.location) ?? undefined, description: str(t.description) ?? undefined };
}

// Stored times are UTC; without a script the visitor's zone is unknown, so the page says UTC plainly.
const DAY = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

function when(startIso: string, endIso: string): string {
  const start = new Date(startIso);
  const end = new Date(endIso);
  const sameDay = DAY.format(start) === DAY.format(end);
  const from = `<time datetime="${esc(start.toISOString())}">${esc(`${DAY.format(start)}, ${TIME.format(start)}`)}</time>`;
  const to = `<time datetime="${esc(end.toISOString())}">${esc(sameDay ? TIME.format(end) : `${DAY.format(end)}, ${TIME.format(end)}`)}</time>`;
  return `${from} – ${to} (UTC)`;
}

/** `download`: the same-host path of the event's calendar file (the handler names its suffix). */
export function eventPage(t: Target, download: string): HostedResponse | null {
  const e = eventFields(t);
  if (!e) return null;
  const body = `<h1>${esc(e.title)}</h1>
${details([
  ['When', when(e.start, e.end)],
  ['Where', e.location ? esc(e.location) : null],
  ['About', e.description ? `<span class="text">${esc(e.description)}</span>` : null],
])}
${linkButtons([{ label: 'Add to calendar', download }])}`;
  return page(200, e.title, body);
}

export function emailPage(t: Target): HostedResponse | null {
  const email = str(t.email);
  if (!email) return null;
  const cc = strings(t.cc);
  const bcc = strings(t.bcc);
  const href = mailtoHref({ email, subject: str(t.subject) ?? undefined, message: str(t.message) ?? undefined, cc, bcc });
  const body = `<h1>Send an e-mail</h1>
${details([
  ['To', esc(email)],
  ['Cc', cc.length ? esc(cc.join(', ')) : null],
  ['Subject', t.subject ? esc(t.subject) : null],
  ['Message', t.message ? `<span class="text">${esc(t.message)}</span>` : null],
])}
${linkButtons([{ label: 'Write the e-mail', href }])}`;
  return page(200, 'Send an e-mail', body);
}

export function smsPage(t: Target): HostedResponse | null {
  const phone = str(t.phone);
  if (!phone) return null;
  const message = str(t.message);
  // RFC 5724 sms: URI (the SMSTO: form of static codes is not a link scheme browsers open).
  const href = `sms:${encodeURIComponent(phone).replace(/%2B/g, '+')}${message ? `?body=${encodeURIComponent(message)}` : ''}`;
  const body = `<h1>Send a text message</h1>
${details([
  ['To', esc(phone)],
  ['Message', message ? `<span class="text">${esc(message)}</span>` : null],
])}
${linkButtons([{ label: 'Write the message', href }])}`;
  return page(200, 'Send a text message', body);
}
