import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiException } from '../../common/errors/api.exception';
import { checkHttpUrl, FieldReader, headerSafeUrl, normalizePhone } from './fields';
import type { StoredTarget, TargetHandler } from './target-handler';

export const UTM_FIELDS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
export type Utm = Partial<Record<(typeof UTM_FIELDS)[number], string>>;

/** Link types besides url: each is a redirect with its own name (dashboard icon), dynamic only. */
export const LINK_TYPES = [
  'youtube', 'googleform', 'googledoc', 'googlemaps', 'facebook', 'instagram', 'linkedin', 'twitter', 'tiktok',
  'spotify', 'pinterest', 'snapchat', 'soundcloud', 'paypal', 'zoom', 'calendly',
] as const;

class UtmSchema {
  @ApiPropertyOptional({ example: 'qr' }) source?: string;
  @ApiPropertyOptional({ example: 'print' }) medium?: string;
  @ApiPropertyOptional({ example: 'spring' }) campaign?: string;
  @ApiPropertyOptional() term?: string;
  @ApiPropertyOptional() content?: string;
}
export class UrlTarget {
  @ApiProperty({ enum: ['url', ...LINK_TYPES], example: 'url', description: 'url or another link type (youtube, googleform, …; dynamic only)' }) type!: string;
  @ApiProperty({ example: 'https://example.com/menu', description: 'http or https URL' }) destination!: string;
  @ApiPropertyOptional({ type: UtmSchema, nullable: true, description: 'Merged into the destination at scan time (dynamic) or into the encoded URL (static)' }) utm?: UtmSchema;
}
export class WhatsappTarget {
  @ApiProperty({ enum: ['whatsapp'] }) type!: string;
  @ApiPropertyOptional({ example: '+15551234567' }) phone?: string;
  @ApiPropertyOptional({ example: 'Hello!' }) message?: string;
  @ApiPropertyOptional({ description: 'A WhatsApp link instead of phone/message', example: 'https://wa.me/15551234567' }) destination?: string;
}
export class TelegramTarget {
  @ApiProperty({ enum: ['telegram'] }) type!: string;
  @ApiProperty({ example: '@scanlink', description: 'A @username, a phone number or a t.me link' }) destination!: string;
}

function readUtm(r: FieldReader, current?: Utm | null): Utm | null | undefined {
  if (!(('utm') in r.input)) return undefined;
  if (r.input.utm === null) return null;
  const u = r.object('utm')!;
  u.only([...UTM_FIELDS]);
  const out: Utm = { ...(current ?? {}) };
  for (const f of UTM_FIELDS) {
    if (f in u.input) {
      const v = u.string(f, { max: 255 });
      if (v === undefined) delete out[f];
      else out[f] = v;
    }
  }
  return Object.keys(out).length ? out : null;
}

/** The decoded name of one `name=value` part of a query string (form encoding: `+` is a space). */
function queryPartName(part: string): string {
  const raw = part.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Adds UTM parameters to a URL. The existing query is kept byte for byte (encoding, order, bare `flag` parameters),
 * except that a `utm_*` the code sets replaces the first parameter of that name in place and drops its repeats, as
 * URLSearchParams.set does; the others are appended. The fragment stays last.
 */
export function mergeUtm(destination: string, utm: Utm | null | undefined): string {
  const ours = new Map<string, string>();
  for (const f of UTM_FIELDS) if (utm?.[f]) ours.set(`utm_${f}`, new URLSearchParams([[`utm_${f}`, utm[f]!]]).toString());
  if (ours.size === 0) return destination;
  const hashAt = destination.indexOf('#');
  const fragment = hashAt >= 0 ? destination.slice(hashAt) : '';
  const beforeHash = hashAt >= 0 ? destination.slice(0, hashAt) : destination;
  const queryAt = beforeHash.indexOf('?');
  let base = queryAt >= 0 ? beforeHash.slice(0, queryAt) : beforeHash;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*$/i.test(base)) base += '/'; // `https://host?q` → `https://host/?q`, as URL writes it
  const parts: string[] = [];
  const placed = new Set<string>();
  for (const part of queryAt >= 0 ? beforeHash.slice(queryAt + 1).split('&') : []) {
    if (part === '') continue;
    const name = queryPartName(part);
    const replacement = ours.get(name);
    if (replacement === undefined) parts.push(part);
    else if (!placed.has(name)) {
      parts.push(replacement);
      placed.add(name);
    }
  }
  for (const [name, pair] of ours) if (!placed.has(name)) parts.push(pair);
  return `${base}?${parts.join('&')}${fragment}`;
}

function linkHandler(type: string, staticCapable: boolean): TargetHandler {
  return {
    type,
    schema: UrlTarget,
    staticCapable,
    pageHolding: false,
    parse(r, kind) {
      r.only(['destination', 'utm']);
      const destination = r.url('destination', { required: true })!;
      const utm = readUtm(r) ?? null;
      // A static code cannot add UTM parameters at scan time: they are merged into the encoded URL instead.
      // Through URL first, so the printed URL is normalized (spaces and non-ASCII percent-encoded) as it always was.
      if (kind === 'static') return { destination: utm ? mergeUtm(new URL(destination).href, utm) : destination, utm: null };
      return { destination, utm };
    },
    patch(current, r) {
      r.only(['destination', 'utm']);
      // Sent as null is not omitted: a link code cannot lose its destination (400 "is required").
      const destination = r.input.destination !== undefined ? r.url('destination', { required: true })! : (current.destination as string);
      const utm = readUtm(r, current.utm as Utm | null);
      return { type, target: { destination, utm: utm === undefined ? (current.utm ?? null) : utm } };
    },
    payload: (t) => t.destination as string,
    scan: {
      fixedLocation(t) {
        if (typeof t.destination !== 'string') return null;
        const base = headerSafeUrl(t.destination);
        return base && headerSafeUrl(mergeUtm(base, t.utm as Utm | null | undefined));
      },
    },
  };
}

export const urlHandler = linkHandler('url', true);
export const linkHandlers = LINK_TYPES.map((t) => linkHandler(t, false));

/** A WhatsApp link that names someone or something: `https://wa.me/` alone opens nothing. */
const WHATSAPP_LINK = /^https:\/\/(wa\.me|api\.whatsapp\.com|web\.whatsapp\.com|chat\.whatsapp\.com|(www\.)?whatsapp\.com)\/[^?#\s]/i;

export function whatsappUrl(t: StoredTarget): string {
  if (typeof t.destination === 'string') return t.destination;
  const digits = String(t.phone ?? '').replace(/\D/g, '');
  return `https://wa.me/${digits}${t.message ? `?text=${encodeURIComponent(String(t.message))}` : ''}`;
}

export const whatsappHandler: TargetHandler = {
  type: 'whatsapp',
  schema: WhatsappTarget,
  staticCapable: false,
  pageHolding: false,
  parse(r) {
    r.only(['phone', 'message', 'destination']);
    if (r.has('destination')) {
      if (r.has('phone') || r.has('message')) r.fail('destination', 'cannot be combined with phone or message');
      const d = r.url('destination', { required: true })!;
      if (!WHATSAPP_LINK.test(d)) r.fail('destination', 'must be a WhatsApp link such as https://wa.me/15551234567');
      return { destination: d };
    }
    return { phone: r.phone('phone', { required: true }), message: r.string('message', { max: 1000 }) ?? null };
  },
  patch(current, r) {
    r.only(['phone', 'message', 'destination']);
    if (r.has('destination')) {
      if (r.has('phone') || r.has('message')) r.fail('destination', 'cannot be combined with phone or message');
      // Re-pointable to any http(s) page (docs/targets.md).
      return { type: 'whatsapp', target: { destination: r.url('destination', { required: true }) } };
    }
    const phone = r.has('phone') ? r.phone('phone', { required: true }) : (current.phone as string | undefined);
    if (!phone) r.fail('phone', 'is required (this code currently points at a link)');
    const message = 'message' in r.input ? (r.string('message', { max: 1000 }) ?? null) : (current.message ?? null);
    return { type: 'whatsapp', target: { phone, message } };
  },
  payload: whatsappUrl,
  scan: { fixedLocation: (t) => headerSafeUrl(whatsappUrl(t)) },
};

/** @username, a phone number, or a t.me link → https://t.me/… */
function telegramDestination(r: FieldReader): string {
  const raw = r.string('destination', { required: true, max: 2048 })!;
  const user = /^@?([A-Za-z][A-Za-z0-9_]{4,31})$/.exec(raw);
  if (user && !/^https?:/i.test(raw)) return `https://t.me/${user[1]}`;
  const phone = normalizePhone(raw);
  if (phone && /^\+?[\d\s().-]+$/.test(raw)) return `https://t.me/+${phone.replace(/^\+/, '')}`;
  // A t.me link with a path (a user, a channel, a +phone): `https://t.me/` alone opens nothing.
  if (/^(https?:\/\/)?(t\.me|telegram\.me)\/[^?#\s/]/i.test(raw)) {
    const url = /^https?:\/\//i.test(raw) ? raw : `https://${raw}`;
    return checkHttpUrl(url, r.field('destination'));
  }
  throw ApiException.invalid(r.field('destination'), `${r.field('destination')} must be a @username, a phone number or a t.me link`);
}

export const telegramHandler: TargetHandler = {
  type: 'telegram',
  schema: TelegramTarget,
  staticCapable: false,
  pageHolding: false,
  parse(r) {
    r.only(['destination']);
    return { destination: telegramDestination(r) };
  },
  patch(_current, r) {
    r.only(['destination']);
    const raw = r.string('destination', { required: true, max: 2048 })!;
    // Any other http(s) page is fine too (docs/targets.md).
    if (/^https?:\/\//i.test(raw) && !/^https?:\/\/(t\.me|telegram\.me)\//i.test(raw)) {
      return { type: 'telegram', target: { destination: checkHttpUrl(raw, r.field('destination')) } };
    }
    return { type: 'telegram', target: { destination: telegramDestination(r) } };
  },
  payload: (t) => t.destination as string,
  scan: { fixedLocation: (t) => (typeof t.destination === 'string' ? headerSafeUrl(t.destination) : null) },
};
