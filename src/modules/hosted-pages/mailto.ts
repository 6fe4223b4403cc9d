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

export interface VCardFields {
  your_name: string;
  company_name?: string;
  position?: string;
  email?: string;
  phone_mobile?: string;
  phone_work?: string;
  website?: string;
  address?: string;
  note?: string;
}

export interface EventFields {
  title: string;
  start: string;
  end: string;
  location?: string;
  description?: string;
}
