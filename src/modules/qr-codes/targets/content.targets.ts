import { ApiException } from '../../../common/errors/api.exception';
import {
  geoPayload,
  mailtoPayload,
  smsPayload,
  vcardPayload,
  veventPayload,
  wifiPayload,
  type EventFields,
  type VCardFields,
  type WifiFields,
} from './encoders';
import { FieldReader, Input, isEmail, normalizePhone } from './fields';
import type { StoredTarget, TargetHandler } from './target-handler';

/** Structured types: created from fields or a pre-encoded `destination`; PATCH merges fields, refuses `destination`. */
function structured(
  type: string,
  fields: string[],
  read: (r: FieldReader) => StoredTarget,
  fromDestination: (raw: string, r: FieldReader) => Input,
  payload: (t: StoredTarget) => string,
): TargetHandler {
  return {
    type,
    staticCapable: true,
    pageHolding: false,
    parse(r) {
      r.only([...fields, 'destination']);
      if (r.has('destination')) {
        const other = fields.find((f) => r.has(f));
        if (other) r.fail('destination', `cannot be combined with structured fields (${r.field(other)})`);
        const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
        return read(new FieldReader(fromDestination(raw, r), r.path));
      }
      return read(r);
    },
    patch(current, r) {
      if ('destination' in r.input) {
        throw ApiException.invalid(r.field('destination'), `${r.field('destination')} cannot be set on a dynamic ${type} code: update its fields instead`);
      }
      r.only(fields);
      const merged: Input = { ...current };
      for (const f of fields) if (f in r.input) merged[f] = r.input[f];
      return { type, target: read(new FieldReader(merged, r.path)) };
    },
    payload,
  };
}

const badDestination = (r: FieldReader, what: string): never =>
  r.fail('destination', `must be ${what} (or send the structured fields instead)`);

export const textHandler = structured(
  'text',
  ['text'],
  (r) => ({ text: r.string('text', { required: true, max: 4000, trim: false }) }),
  (raw) => ({ text: raw }),
  (t) => t.text as string,
);

export const emailHandler = structured(
  'email',
  ['email', 'subject', 'message', 'cc', 'bcc'],
  (r) => ({
    email: r.email('email', { required: true }),
    subject: r.string('subject', { max: 255 }) ?? null,
    message: r.string('message', { max: 2000, trim: false }) ?? null,
    cc: r.emailList('cc') ?? [],
    bcc: r.emailList('bcc') ?? [],
  }),
  (raw, r) => {
    if (!/^mailto:/i.test(raw)) badDestination(r, 'a mailto: URI');
    const q = raw.indexOf('?');
    const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '');
    const email = decodeURIComponent(raw.slice(7, q >= 0 ? q : undefined));
    return {
      email,
      subject: params.get('subject') ?? undefined,
      message: params.get('body')?.replace(/\r\n/g, '\n') ?? undefined,
      cc: params.get('cc') ?? undefined,
      bcc: params.get('bcc') ?? undefined,
    };
  },
  (t) => mailtoPayload(t as never),
);

export const smsHandler = structured(
  'sms',
  ['phone', 'message'],
  (r) => ({ phone: r.phone('phone', { required: true }), message: r.string('message', { max: 1000, trim: false }) ?? null }),
  (raw, r) => {
    const smsto = /^SMSTO:([^:]*):?([\s\S]*)$/i.exec(raw);
    if (smsto) return { phone: smsto[1], message: smsto[2] || undefined };
    const sms = /^sms:([^?]*)(\?([\s\S]*))?$/i.exec(raw);
    if (sms) return { phone: decodeURIComponent(sms[1]), message: new URLSearchParams(sms[3] ?? '').get('body') ?? undefined };
    return badDestination(r, 'an SMSTO: or sms: URI');
  },
  (t) => smsPayload({ phone: t.phone as string, message: (t.message as string | null) ?? undefined }),
);

/** Splits `WIFI:T:WPA;S:net;P:pass;;` honouring backslash escapes. */
function parseWifi(raw: string, r: FieldReader): Input {
  if (!/^WIFI:/i.test(raw)) badDestination(r, 'a WIFI: string such as WIFI:T:WPA;S:MyNetwork;P:secret;;');
  const out: Record<string, string> = {};
  let key = '';
  let value = '';
  let inValue = false;
  const body = raw.slice(5);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && i + 1 < body.length) {
      if (inValue) value += body[++i];
      else key += body[++i];
    } else if (!inValue && ch === ':') {
      inValue = true;
    } else if (ch === ';') {
      if (key) out[key.toUpperCase()] = value;
      key = '';
      value = '';
      inValue = false;
    } else if (inValue) value += ch;
    else key += ch;
  }
  return { ssid: out.S, password: out.P || undefined, encryption: out.T || 'nopass', hidden: out.H === 'true' ? true : undefined };
}

export const wifiHandler = structured(
  'wifi',
  ['ssid', 'password', 'encryption', 'hidden'],
  (r) => {
    const encryption = r.oneOf('encryption', ['WPA', 'WEP', 'nopass'] as const) ?? 'WPA';
    const ssid = r.string('ssid', { required: true, max: 32, trim: false })!;
    let password = r.string('password', { max: 63, trim: false }) ?? null;
    if (encryption === 'nopass') password = null;
    else if (!password) r.fail('password', `is required when encryption is ${encryption}`);
    else if (encryption === 'WPA' && password.length < 8) r.fail('password', 'must be 8 to 63 characters for WPA');
    return { ssid, password, encryption, hidden: r.boolean('hidden') ?? false };
  },
  parseWifi,
  (t) => wifiPayload(t as unknown as WifiFields),
);

function readEvent(r: FieldReader): StoredTarget {
  const title = r.string('title', { required: true, max: 255 });
  const start = r.dateTime('start', { required: true })!;
  const end = r.dateTime('end', { required: true })!;
  if (Date.parse(end) <= Date.parse(start)) r.fail('end', 'must be after target.start');
  return {
    title,
    location: r.string('location', { max: 255 }) ?? null,
    start,
    end,
    description: r.string('description', { max: 2000, trim: false }) ?? null,
  };
}

export const eventHandler: TargetHandler = {
  ...structured(
    'event',
    ['title', 'location', 'start', 'end', 'description'],
    readEvent,
    (_raw, r) => badDestination(r, 'structured fields for event codes'),
    (t) => (t.raw as string | undefined) ?? veventPayload(t as unknown as EventFields),
  ),
  parse(r, kind) {
    r.only(['title', 'location', 'start', 'end', 'description', 'destination']);
    if (r.has('destination')) {
      // A pre-encoded iCalendar text is kept as is; only a static code can hold it (a hosted page needs the fields).
      if (kind === 'dynamic') r.fail('destination', 'is accepted for static event codes only; send title, start and end');
      const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
      if (!/^BEGIN:(VEVENT|VCALENDAR)/.test(raw)) badDestination(r, 'an iCalendar text starting with BEGIN:VEVENT');
      return { raw };
    }
    return readEvent(r);
  },
};

const VCARD_FIELDS = ['your_name', 'company_name', 'position', 'email', 'phone_mobile', 'phone_work', 'website', 'address', 'note'];

function readVcard(r: FieldReader): StoredTarget {
  const v = r.object('vcard', { required: true })!;
  v.only(VCARD_FIELDS);
  const card: VCardFields = {
    your_name: v.string('your_name', { required: true, max: 255 })!,
    company_name: v.string('company_name', { max: 255 }),
    position: v.string('position', { max: 255 }),
    email: v.email('email'),
    phone_mobile: v.phone('phone_mobile'),
    phone_work: v.phone('phone_work'),
    website: v.url('website'),
    address: v.string('address', { max: 500 }),
    note: v.string('note', { max: 1000, trim: false }),
  };
  return { vcard: Object.fromEntries(Object.entries(card).map(([k, val]) => [k, val ?? null])) };
}

export const vcardHandler: TargetHandler = {
  type: 'vcard',
  staticCapable: true,
  pageHolding: false,
  parse(r, kind) {
    r.only(['vcard', 'destination']);
    if (r.has('destination')) {
      if (r.has('vcard')) r.fail('destination', 'cannot be combined with target.vcard');
      if (kind === 'dynamic') r.fail('destination', 'is accepted for static vCard codes only; send target.vcard');
      const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
      if (!/^BEGIN:VCARD/.test(raw)) badDestination(r, 'a vCard text starting with BEGIN:VCARD');
      return { raw };
    }
    return readVcard(r);
  },
  patch(current, r) {
    if ('destination' in r.input) r.fail('destination', 'cannot be set on a dynamic vcard code: update target.vcard instead');
    r.only(['vcard']);
    const patch = r.object('vcard', { required: true })!;
    const merged = { ...(current.vcard as Input), ...patch.input };
    return { type: 'vcard', target: readVcard(new FieldReader({ vcard: merged }, r.path)) };
  },
  payload: (t) => (t.raw as string | undefined) ?? vcardPayload(Object.fromEntries(Object.entries(t.vcard as Input).filter(([, v]) => v !== null)) as unknown as VCardFields),
};

const MAP_APPS = ['google', 'apple', 'waze'] as const;

function readLocation(r: FieldReader): StoredTarget {
  const lat = r.number('lat', { required: true, min: -90, max: 90 });
  const lng = r.number('lng', { required: true, min: -180, max: 180 });
  return {
    lat,
    lng,
    label: r.string('label', { max: 255 }) ?? null,
    address: r.string('address', { max: 500 }) ?? null,
    map_app: r.oneOf('map_app', MAP_APPS) ?? 'google',
  };
}

function parseGeo(raw: string, r: FieldReader): Input {
  const m = /^geo:(-?\d+(\.\d+)?),(-?\d+(\.\d+)?)/i.exec(raw.trim());
  if (!m) return badDestination(r, 'a geo: URI such as geo:48.8584,2.2945');
  return { lat: Number(m[1]), lng: Number(m[3]) };
}

export function mapUrl(t: StoredTarget): string {
  const { lat, lng, label } = t as { lat: number; lng: number; label: string | null };
  switch (t.map_app) {
    case 'apple':
      return `https://maps.apple.com/?ll=${lat},${lng}${label ? `&q=${encodeURIComponent(label)}` : ''}`;
    case 'waze':
      return `https://waze.com/ul?ll=${lat},${lng}&navigate=yes`;
    default:
      return `https://www.google.com/maps/search/?api=1&query=${lat},${lng}`;
  }
}

export const locationHandler: TargetHandler = {
  type: 'location',
  staticCapable: true,
  pageHolding: false,
  parse(r) {
    r.only(['lat', 'lng', 'label', 'address', 'map_app', 'destination']);
    if (r.has('destination')) {
      if (r.has('lat') || r.has('lng')) r.fail('destination', 'cannot be combined with target.lat/target.lng');
      const raw = r.string('destination', { required: true, max: 2048 })!;
      return readLocation(new FieldReader({ ...r.input, ...parseGeo(raw, r), destination: undefined }, r.path));
    }
    return readLocation(r);
  },
  patch(current, r) {
    r.only(['lat', 'lng', 'label', 'address', 'map_app', 'destination']);
    if (r.has('destination')) {
      const raw = r.string('destination', { required: true, max: 2048 })!;
      if (/^https?:\/\//i.test(raw)) {
        // A plain destination turns the code into an ordinary redirect (spec PATCH table).
        if (['lat', 'lng', 'label', 'address', 'map_app'].some((f) => r.has(f))) {
          r.fail('destination', 'cannot be combined with location fields');
        }
        return { type: 'url', target: { destination: r.url('destination', { required: true }), utm: null } };
      }
      return { type: 'location', target: readLocation(new FieldReader({ ...current, ...parseGeo(raw, r) }, r.path)) };
    }
    if (r.has('lat') !== r.has('lng')) r.fail(r.has('lat') ? 'lng' : 'lat', 'must be sent together with the other coordinate');
    const merged: Input = { ...current };
    for (const f of ['lat', 'lng', 'label', 'address', 'map_app']) if (f in r.input) merged[f] = r.input[f];
    return { type: 'location', target: readLocation(new FieldReader(merged, r.path)) };
  },
  payload: (t) => geoPayload(t as { lat: number; lng: number }),
};

export { isEmail, normalizePhone };
