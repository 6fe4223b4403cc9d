import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { vcardPayload, type VCardFields } from './encoders';
import { FieldReader, Input } from './fields';
import { vcardPage } from '../hosted-pages/content-pages';
import { vcardDownload } from './downloads';
import { badDestination } from './structured';
import { parseVcardText } from './calendar-text';
import { defineHandler } from './target-handler';

class VcardFields {
  @ApiProperty({ example: 'Ada Lovelace' }) your_name!: string;
  @ApiPropertyOptional({ example: 'Analytical Engines Ltd' }) company_name?: string;
  @ApiPropertyOptional({ example: 'CTO' }) position?: string;
  @ApiPropertyOptional({ example: 'ada@example.com' }) email?: string;
  @ApiPropertyOptional({ example: '+441234567890' }) phone_mobile?: string;
  @ApiPropertyOptional() phone_work?: string;
  @ApiPropertyOptional() website?: string;
  @ApiPropertyOptional() address?: string;
  @ApiPropertyOptional() note?: string;
}
export class VcardTarget {
  @ApiProperty({ enum: ['vcard'] }) type!: string;
  @ApiPropertyOptional({ type: VcardFields, description: 'Required unless `destination` is given' }) vcard?: VcardFields;
  @ApiPropertyOptional({ example: 'BEGIN:VCARD\\r\\nVERSION:3.0\\r\\nFN:Ana Lima\\r\\nEND:VCARD', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (vCard text); a static code encodes it as given' }) destination?: string;
}

const VCARD_FIELDS = ['your_name', 'company_name', 'position', 'email', 'phone_mobile', 'phone_work', 'website', 'address', 'note'];

/** The suffix of the contact file a dynamic vcard code serves (`/{short_code}.vcf`). */
const VCF = '.vcf';

/** What a vcard code stores: its card (an absent field is null), or (static codes created from text) the vCard text as
 * sent. */
type StoredVcard = { vcard: VCardFields } | { raw: string };

function readVcard(r: FieldReader): { vcard: VCardFields } {
  const v = r.object('vcard', { required: true })!;
  v.only(VCARD_FIELDS);
  const card: VCardFields = {
    your_name: v.string('your_name', { required: true, max: 255 })!,
    company_name: v.string('company_name', { max: 255 }) ?? null,
    position: v.string('position', { max: 255 }) ?? null,
    email: v.email('email') ?? null,
    phone_mobile: v.phone('phone_mobile') ?? null,
    phone_work: v.phone('phone_work') ?? null,
    website: v.url('website') ?? null,
    address: v.string('address', { max: 500 }) ?? null,
    note: v.string('note', { max: 1000, trim: false }) ?? null,
  };
  return { vcard: card };
}

export const vcardHandler = defineHandler<StoredVcard>({
  type: 'vcard',
  schema: VcardTarget,
  staticCapable: true,
  pageHolding: false,
  parse(r, kind) {
    r.only(['vcard', 'destination']);
    if (r.has('destination')) {
      if (r.has('vcard')) r.fail('destination', 'cannot be combined with target.vcard');
      const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
      if (!/^BEGIN:VCARD/i.test(raw)) badDestination(r, 'a vCard text starting with BEGIN:VCARD');
      const parsed = parseVcardText(raw);
      if ('error' in parsed) r.fail('destination', `is not a valid vCard: ${parsed.error}`);
      // A static code encodes the text as sent; a dynamic one stores its fields (its hosted page and .vcf use them).
      if (kind === 'static') return { raw };
      return readVcard(new FieldReader({ vcard: Object.fromEntries(Object.entries((parsed as { fields: Input }).fields).filter(([, v]) => v !== undefined)) }, r.path));
    }
    return readVcard(r);
  },
  patch(current, r) {
    if ('destination' in r.input) r.fail('destination', 'cannot be set on a dynamic vcard code: update target.vcard instead');
    r.only(['vcard']);
    const patch = r.object('vcard', { required: true })!;
    const merged = { ...('vcard' in current ? current.vcard : {}), ...patch.input };
    return { type: 'vcard', target: readVcard(new FieldReader({ vcard: merged }, r.path)) };
  },
  payload: (t) => ('raw' in t ? t.raw : vcardPayload(t.vcard)),
  scan: { page: (c) => vcardPage(c.target, `/${c.shortCode}${VCF}`), downloads: { [VCF]: (c) => vcardDownload(c.target) } },
});
