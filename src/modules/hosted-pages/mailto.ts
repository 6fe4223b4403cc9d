/** The contact shapes the hosted pages show and the static payloads encode (targets/encoders.ts), and the mailto: URI
 * both use. */

export interface EmailFields {
  email: string;
  subject?: string;
  message?: string;
  cc?: string[];
  bcc?: string[];
}

/** RFC 6068: percent-encoded hfields, line breaks as %0D%0A. */
export function mailtoHref(e: EmailFields): string {
  const enc = (s: string) => encodeURIComponent(s.replace(/\r?\n/g, '\r\n'));
  const addr = (s: string) => encodeURIComponent(s).replace(/%40/g, '@');
  const params: string[] = [];
  if (e.subject) params.push(`subject=${enc(e.subject)}`);
  if (e.message) params.push(`body=${enc(e.message)}`);
  if (e.cc?.length) params.push(`cc=${e.cc.map(addr).join(',')}`);
  if (e.bcc?.length) params.push(`bcc=${e.bcc.map(addr).join(',')}`);
  return `mailto:${addr(e.email)}${params.length ? `?${params.join('&')}` : ''}`;
}

/** A contact card as stored (an absent field is null) and as read back. A type, not an interface, so that a stored
 * target of this shape is also a plain record the pages read. */
export type VCardFields = {
  your_name: string;
  company_name?: string | null;
  position?: string | null;
  email?: string | null;
  phone_mobile?: string | null;
  phone_work?: string | null;
  website?: string | null;
  address?: string | null;
  note?: string | null;
};

/** An event as stored (an absent field is null) and as read back. */
export type EventFields = {
  title: string;
  start: string;
  end: string;
  location?: string | null;
  description?: string | null;
};
