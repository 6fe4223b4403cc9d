import { fromLocalInput, toLocalInput } from '../../components/local-time';

/**
 * The create/edit form of every target type: which fields it shows (named by the API's own field paths, so an error's
 * `field` lands on the right input) and how their values become the `target` object. Lists (links, form fields, menu
 * items) are edited one per line, `|`-separated; the API validates every entry and names it (`target.links[1].url`),
 * and the error is shown at the list's field.
 */
export type FieldKind = 'text' | 'url' | 'email' | 'tel' | 'textarea' | 'select' | 'checkbox' | 'number' | 'datetime' | 'file' | 'lines';

export interface FieldDef {
  /** The API's field path, e.g. `target.destination`, `target.vcard.your_name`. */
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: ReadonlyArray<{ value: string; label: string }>;
  hint?: string;
  /** Optional fields shown together under a disclosure (e.g. `UTM parameters`), closed until one has a value. */
  group?: string;
}

const LINK_TYPES = ['url', 'youtube', 'googleform', 'googledoc', 'googlemaps', 'facebook', 'instagram', 'linkedin', 'twitter', 'tiktok', 'spotify', 'pinterest', 'snapchat', 'soundcloud', 'paypal', 'zoom', 'calendly'] as const;

export const TYPE_LABELS: Record<string, string> = {
  url: 'Website (URL)',
  youtube: 'YouTube',
  googleform: 'Google Form',
  googledoc: 'Google Doc',
  googlemaps: 'Google Maps',
  facebook: 'Facebook',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  twitter: 'X (Twitter)',
  tiktok: 'TikTok',
  spotify: 'Spotify',
  pinterest: 'Pinterest',
  snapchat: 'Snapchat',
  soundcloud: 'SoundCloud',
  paypal: 'PayPal',
  zoom: 'Zoom',
  calendly: 'Calendly',
  text: 'Plain text',
  email: 'E-mail',
  sms: 'SMS',
  wifi: 'Wi-Fi',
  event: 'Calendar event',
  vcard: 'Contact card (vCard)',
  location: 'Location',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  appstores: 'App stores',
  review: 'Review page',
  linkpage: 'Link page',
  form: 'Lead form',
  menupage: 'Menu',
  file: 'File',
  audio: 'Audio',
  video: 'Video',
  smarturl: 'Smart URL (rules)',
};

/** Types a code may be static for (its payload encoded directly); every other type is dynamic only. */
export const STATIC_CAPABLE: readonly string[] = ['url', 'text', 'email', 'sms', 'wifi', 'event', 'vcard', 'location'];

export const TARGET_TYPES: readonly string[] = Object.keys(TYPE_LABELS);

const t = (name: string, label: string, kind: FieldKind, extra: Partial<FieldDef> = {}): FieldDef => ({ name: `target.${name}`, label, kind, ...extra });

const UTM = { group: 'UTM parameters' };
/** `utm_source` … `utm_content`, added to the destination's query string (a dynamic code's at each scan). */
const UTM_FIELDS: FieldDef[] = [
  t('utm.source', 'Source (utm_source)', 'text', { ...UTM, hint: 'e.g. poster' }),
  t('utm.medium', 'Medium (utm_medium)', 'text', { ...UTM, hint: 'e.g. print' }),
  t('utm.campaign', 'Campaign (utm_campaign)', 'text', UTM),
  t('utm.term', 'Term (utm_term)', 'text', UTM),
  t('utm.content', 'Content (utm_content)', 'text', UTM),
];

export function fieldsFor(type: string): FieldDef[] {
  if ((LINK_TYPES as readonly string[]).includes(type)) return [t('destination', 'Destination URL', 'url', { required: true, hint: 'https://…' }), ...UTM_FIELDS];
  switch (type) {
    case 'text':
      return [t('text', 'Text', 'textarea', { required: true })];
    case 'email':
      return [
        t('email', 'E-mail address', 'email', { required: true }),
        t('subject', 'Subject', 'text'),
        t('message', 'Message', 'textarea'),
        t('cc', 'Cc', 'text', { hint: 'Comma-separated addresses' }),
        t('bcc', 'Bcc', 'text', { hint: 'Comma-separated addresses' }),
      ];
    case 'sms':
      return [t('phone', 'Phone number', 'tel', { required: true, hint: 'International format, e.g. +14155550100' }), t('message', 'Message', 'textarea')];
    case 'wifi':
      return [
        t('ssid', 'Network name (SSID)', 'text', { required: true }),
        t('encryption', 'Security', 'select', { options: [{ value: 'WPA', label: 'WPA/WPA2' }, { value: 'WEP', label: 'WEP' }, { value: 'nopass', label: 'None' }] }),
        t('password', 'Network password', 'text'),
        t('hidden', 'Hidden network', 'checkbox'),
      ];
    case 'event':
      return [
        t('title', 'Title', 'text', { required: true }),
        t('start', 'Starts', 'datetime', { required: true }),
        t('end', 'Ends', 'datetime', { required: true }),
        t('location', 'Location', 'text'),
        t('description', 'Description', 'textarea'),
      ];
    case 'vcard':
      return [
        t('vcard.your_name', 'Name', 'text', { required: true }),
        t('vcard.company_name', 'Company', 'text'),
        t('vcard.position', 'Position', 'text'),
        t('vcard.email', 'E-mail', 'email'),
        t('vcard.phone_mobile', 'Mobile phone', 'tel'),
        t('vcard.phone_work', 'Work phone', 'tel'),
        t('vcard.website', 'Website', 'url'),
        t('vcard.address', 'Address', 'text'),
        t('vcard.note', 'Note', 'textarea'),
      ];
    case 'location':
      return [
        t('lat', 'Latitude', 'number', { required: true }),
        t('lng', 'Longitude', 'number', { required: true }),
        t('label', 'Label', 'text'),
        t('address', 'Address', 'text'),
        t('map_app', 'Map app (a dynamic code opens it)', 'select', { options: [{ value: 'google', label: 'Google Maps' }, { value: 'apple', label: 'Apple Maps' }, { value: 'waze', label: 'Waze' }] }),
      ];
    case 'whatsapp':
      return [t('phone', 'Phone number', 'tel', { required: true, hint: 'International format, e.g. +14155550100' }), t('message', 'Message', 'textarea')];
    case 'telegram':
      return [t('destination', 'Telegram link or username', 'text', { required: true, hint: 'https://t.me/name or @name' })];
    case 'appstores':
      return [t('ios_url', 'App Store URL', 'url'), t('android_url', 'Google Play URL', 'url'), t('fallback_url', 'Fallback URL (other devices)', 'url')];
    case 'review':
      return [
        t('review_page.title', 'Page title', 'text', { required: true }),
        t('review_page.links', 'Review links', 'lines', { required: true, hint: 'One per line: Platform | https://… (Google | https://g.page/r/…)' }),
        t('review_page.feedback_email', 'Feedback e-mail', 'email'),
      ];
    case 'linkpage':
      return [t('title', 'Page title', 'text', { required: true }), t('description', 'Description', 'textarea'), t('links', 'Links', 'lines', { required: true, hint: 'One per line: Title | https://…' })];
    case 'form':
      return [
        t('title', 'Form title', 'text', { required: true }),
        t('fields', 'Fields', 'lines', { required: true, hint: 'One per line: name | Label | text, email, phone, textarea, number, date or checkbox | required (optional)' }),
        t('consent_text', 'Consent text', 'textarea'),
      ];
    case 'menupage':
      return [t('title', 'Menu title', 'text', { required: true }), t('sections', 'Items', 'lines', { required: true, hint: 'One per line: Section | Item | Price | Description (optional)' })];
    case 'file':
    case 'audio':
    case 'video':
      return [t('file_id', 'File', 'file', { required: true }), t('title', 'Title', 'text'), t('description', 'Description', 'textarea')];
    case 'smarturl':
      return [t('default_url', 'Default URL', 'url', { required: true, hint: 'Where scans go when no rule matches; add rules after creating the code' })];
    default:
      return [];
  }
}

export type Values = Record<string, string | boolean>;

const cells = (line: string) => line.split('|').map((c) => c.trim());
const lines = (v: unknown) =>
  String(v ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** `Title | https://…` lines as links; a review page's links name their platform instead of a title. */
function linkList(v: unknown, label: 'title' | 'platform') {
  return lines(v).map((l) => {
    const [name, url] = cells(l);
    return { [label]: name, url: url ?? '' };
  });
}

/**
 * The `target` object of a type from the form's values (keys are field paths). Empty fields are left out of a new
 * code; for an edit (`clear`) they are sent as null and an unticked box as false, since `PATCH` keeps every field it is
 * not sent (a UTM group left empty becomes `utm: null`). Date-times are typed in the browser's time zone.
 */
export function buildTarget(type: string, values: Values, { clear = false }: { clear?: boolean } = {}): Record<string, unknown> {
  const target: Record<string, unknown> = { type };
  for (const f of fieldsFor(type)) {
    const path = f.name.slice('target.'.length).split('.');
    const v = fieldValue(type, f, path, values[f.name], clear);
    if (v === undefined) continue;
    let at = target;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[path[path.length - 1]] = v;
  }
  return target;
}

/** One field's value in the target: undefined to leave it out. */
function fieldValue(type: string, f: FieldDef, path: string[], v: string | boolean | undefined, clear: boolean): unknown {
  if (f.kind === 'checkbox') return v || clear ? Boolean(v) : undefined;
  // Emptied on an edit: null, a required field too (the API then names it, and the form shows why at the field).
  if (v === undefined || v === '') return clear ? null : undefined;
  if (f.kind === 'number') {
    // Sent as typed when it is not a number (`48,85`, `abc`), so that the API says so rather than "is required".
    const n = Number(String(v).trim());
    return String(v).trim() !== '' && Number.isFinite(n) ? n : v;
  }
  if (f.kind === 'datetime') return fromLocalInput(String(v));
  if (f.kind === 'lines') return listValue(type, path[path.length - 1], v);
  return v;
}

function listValue(type: string, key: string, v: unknown): unknown {
  if (key === 'links') return linkList(v, type === 'review' ? 'platform' : 'title');
  if (type === 'form' && key === 'fields')
    return lines(v).map((l) => {
      const [name, label, kind, required] = cells(l);
      return { name, label: label || name, type: kind || 'text', required: /^(required|yes|true)$/i.test(required ?? '') };
    });
  if (type === 'menupage' && key === 'sections') {
    const sections: Array<{ name: string; items: Array<{ name: string; price: string; description?: string }> }> = [];
    for (const l of lines(v)) {
      const [section, name, price, description] = cells(l);
      let s = sections.find((x) => x.name === section);
      if (!s) sections.push((s = { name: section, items: [] }));
      s.items.push({ name, price: price ?? '', ...(description && { description }) });
    }
    return sections;
  }
  return lines(v);
}

/** The form values of an existing code's target (for editing). */
export function valuesOf(type: string, target: Record<string, unknown>): Values {
  const out: Values = {};
  for (const f of fieldsFor(type)) {
    const path = f.name.slice('target.'.length).split('.');
    let v: unknown = target;
    for (const key of path) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    if (v === undefined || v === null) continue;
    if (f.kind === 'checkbox') out[f.name] = Boolean(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[f.name] = v.join(', ');
    else if (f.kind === 'lines' && Array.isArray(v)) out[f.name] = v.map((x: Record<string, unknown>) => Object.values(x).filter((c) => typeof c !== 'object').join(' | ')).join('\n');
    else if (f.kind === 'datetime') out[f.name] = toLocalInput(String(v));
    else out[f.name] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
