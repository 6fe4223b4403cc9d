import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { veventPayload, type EventFields } from './encoders';
import { FieldReader } from './fields';
import { parseEventText } from './calendar-text';
import { eventPage } from '../hosted-pages/content-pages';
import { eventDownload } from './downloads';
import { badDestination, structured } from './structured';
import { defineHandler } from './target-handler';

export class EventTarget {
  @ApiProperty({ enum: ['event'] }) type!: string;
  @ApiPropertyOptional({ example: 'Launch party', description: 'Required unless `destination` is given' }) title?: string;
  @ApiPropertyOptional({ example: 'Hall 1, Berlin' }) location?: string;
  @ApiPropertyOptional({ format: 'date-time', example: '2026-05-01T18:00:00Z', description: 'Required unless `destination` is given' }) start?: string;
  @ApiPropertyOptional({ format: 'date-time', example: '2026-05-01T21:00:00Z', description: 'After start (required unless `destination` is given)' }) end?: string;
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional({ example: 'BEGIN:VEVENT\\r\\nSUMMARY:Launch party\\r\\nDTSTART:20260501T180000Z\\r\\nEND:VEVENT', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (iCalendar VEVENT text); a static code encodes it as given' }) destination?: string;
}

/** The suffix of the calendar file a dynamic event code serves (`/{short_code}.ics`). */
const ICS = '.ics';

/** What an event code stores: its fields, or (static codes created from text) the iCalendar text as sent. */
type StoredEvent = EventFields | { raw: string };

function readEvent(r: FieldReader): EventFields {
  const title = r.string('title', { required: true, max: 255 })!;
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

export const eventHandler = defineHandler<StoredEvent>({
  ...structured<StoredEvent>(
    'event',
    ['title', 'location', 'start', 'end', 'description'],
    readEvent,
    (_raw, r) => badDestination(r, 'structured fields for event codes'),
    (t) => ('raw' in t ? t.raw : veventPayload(t)),
    { schema: EventTarget, scan: { page: (c) => eventPage(c.target, `/${c.shortCode}${ICS}`), downloads: { [ICS]: (c) => eventDownload(c.target, c.id) } } },
  ),
  parse(r, kind) {
    r.only(['title', 'location', 'start', 'end', 'description', 'destination']);
    if (r.has('destination')) {
      const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
      if (!/^BEGIN:(VEVENT|VCALENDAR)/i.test(raw)) badDestination(r, 'an iCalendar text starting with BEGIN:VEVENT');
      const parsed = parseEventText(raw);
      if ('error' in parsed) r.fail('destination', `is not a valid iCalendar event: ${parsed.error}`);
      // A static code encodes the text as sent; a dynamic one stores its fields (its hosted page and .ics use them).
      if (kind === 'static') return { raw };
      return readEvent(new FieldReader(Object.fromEntries(Object.entries((parsed as { fields: Record<string, string | undefined> }).fields).filter(([, v]) => v !== undefined)), r.path));
    }
    return readEvent(r);
  },
});
