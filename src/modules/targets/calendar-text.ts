import ICAL from 'ical.js';

/**
 * Pre-encoded vCard and iCalendar texts (a `destination` starting with BEGIN:VCARD / BEGIN:VEVENT / BEGIN:VCALENDAR),
 * parsed with ical.js (Mozilla's maintained parser for both formats) into the fields a code stores. Pure.
 * Returns the fields, or a message saying what is wrong.
 */

type Parsed = { fields: Record<string, string | undefined> } | { error: string };

function component(raw: string): InstanceType<typeof ICAL.Component> | string {
  try {
    const parsed = ICAL.parse(raw);
    // A text holding several components parses to an array of them: one is expected.
    if (Array.isArray(parsed[0])) return 'must hold exactly one component';
    return new ICAL.Component(parsed as never);
  } catch (err) {
    return (err as Error).message || 'is not valid';
  }
}

const text = (v: unknown): string | undefined => {
  if (v === null || v === undefined) return undefined;
  const s = Array.isArray(v) ? v.map((x) => String(x ?? '').trim()).filter(Boolean).join(', ') : String(v).trim();
  return s === '' ? undefined : s;
};

/** A vCard 3.0 or 4.0 (RFC 2426 / RFC 6350): FN is required; the usual properties become the stored fields. */
export function parseVcardText(raw: string): Parsed {
  const card = component(raw);
  if (typeof card === 'string') return { error: card };
  if (card.name !== 'vcard') return { error: 'must be a vCard (BEGIN:VCARD … END:VCARD)' };
  const version = text(card.getFirstPropertyValue('version'));
  if (version !== '3.0' && version !== '4.0') return { error: `must be a vCard 3.0 or 4.0 (VERSION:${version ?? 'missing'})` };
  const name = text(card.getFirstPropertyValue('fn'));
  if (!name) return { error: 'must carry the FN (formatted name) property' };
  const tels = card.getAllProperties('tel');
  const isWork = (p: InstanceType<typeof ICAL.Property>) => /work/i.test(String(p.getParameter('type') ?? ''));
  const mobile = tels.find((p) => !isWork(p)) ?? undefined;
  const work = tels.find((p) => isWork(p) && p !== mobile);
  const org = card.getFirstPropertyValue('org');
  return {
    fields: {
      your_name: name,
      company_name: Array.isArray(org) ? text(org[0]) : text(org),
      position: text(card.getFirstPropertyValue('title')),
      email: text(card.getFirstPropertyValue('email'))?.replace(/^mailto:/i, ''),
      phone_mobile: text(mobile?.getFirstValue())?.replace(/^tel:/i, ''),
      phone_work: text(work?.getFirstValue())?.replace(/^tel:/i, ''),
      website: text(card.getFirstPropertyValue('url')),
      address: text(card.getFirstPropertyValue('adr')),
      note: text(card.getFirstPropertyValue('note')),
    },
  };
}

/** An iCalendar event (RFC 5545): a VEVENT, alone or in a VCALENDAR, with SUMMARY, DTSTART and DTEND or DURATION. */
export function parseEventText(raw: string): Parsed {
  const root = component(raw);
  if (typeof root === 'string') return { error: root };
  const vevent = root.name === 'vevent' ? root : root.name === 'vcalendar' ? root.getFirstSubcomponent('vevent') : null;
  if (!vevent) return { error: 'must be an iCalendar VEVENT (alone or in a VCALENDAR)' };
  try {
    const event = new ICAL.Event(vevent);
    if (!vevent.getFirstPropertyValue('dtstart')) return { error: 'must carry DTSTART' };
    if (!vevent.getFirstPropertyValue('dtend') && !vevent.getFirstPropertyValue('duration')) return { error: 'must carry DTEND or DURATION' };
    return {
      fields: {
        title: text(event.summary),
        location: text(event.location),
        description: text(event.description),
        start: event.startDate.toJSDate().toISOString(),
        end: event.endDate.toJSDate().toISOString(),
      },
    };
  } catch (err) {
    return { error: (err as Error).message || 'is not a valid event' };
  }
}
