import { eventFields, vcardFields } from '../hosted-pages/content-pages';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import { downloadResponse } from '../hosted-pages/layout';
import { vcardPayload, veventPayload } from './encoders';

type Target = Record<string, unknown>;

/** `.vcf`: the same vCard 3.0 text a static code would hold, ended by CRLF as RFC 2426 wants. */
export function vcardDownload(t: Target): HostedResponse | null {
  const v = vcardFields(t);
  if (!v) return null;
  return downloadResponse(`${vcardPayload(v)}\r\n`, 'text/vcard; charset=utf-8', v.your_name, 'vcf');
}

/** `.ics`: the VEVENT a static code would hold, inside the VCALENDAR a calendar import needs, with the UID and
 * DTSTAMP RFC 5545 requires of a component in a file (the UID is the code's id, so re-imports update one event). */
export function eventDownload(t: Target, codeId: string): HostedResponse | null {
  const e = eventFields(t);
  if (!e) return null;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const vevent = veventPayload(e).replace('BEGIN:VEVENT\r\n', `BEGIN:VEVENT\r\nUID:${codeId}@scanlink\r\nDTSTAMP:${stamp}\r\n`);
  const ics = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Scanlink//Hosted pages//EN', 'CALSCALE:GREGORIAN', vevent, 'END:VCALENDAR', ''].join('\r\n');
  return downloadResponse(ics, 'text/calendar; charset=utf-8', e.title, 'ics');
}
