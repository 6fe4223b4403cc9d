import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isPrototypeName } from '../../common/errors/input-rules';
import { characters, type FieldReader, headerSafeUrl } from './fields';
import { FORM_FIELD_TYPES, renderFormPage } from '../hosted-pages/form-page';
import { appstoresPage, linkPage, menuPage, reviewPage } from '../hosted-pages/link-pages';
import { refuseTargetPatch, type StoredTarget, type TargetHandler } from './target-handler';

export class AppstoresTarget {
  @ApiProperty({ enum: ['appstores'] }) type!: string;
  @ApiPropertyOptional({ example: 'https://apps.apple.com/app/id123' }) ios_url?: string;
  @ApiPropertyOptional({ example: 'https://play.google.com/store/apps/details?id=com.example' }) android_url?: string;
  @ApiPropertyOptional({ example: 'https://example.com/app', description: 'Where other devices (and desktops) go' }) fallback_url?: string;
}
class ReviewLink {
  @ApiProperty({ example: 'google' }) platform!: string;
  @ApiProperty({ example: 'https://g.page/r/example/review' }) url!: string;
}
class ReviewPage {
  @ApiProperty({ example: 'How did we do?' }) title!: string;
  @ApiProperty({ type: [ReviewLink] }) links!: ReviewLink[];
  @ApiPropertyOptional({ example: 'feedback@example.com' }) feedback_email?: string;
}
export class ReviewTarget {
  @ApiProperty({ enum: ['review'] }) type!: string;
  @ApiProperty({ type: ReviewPage }) review_page!: ReviewPage;
}
class PageLink {
  @ApiProperty({ example: 'Our shop' }) title!: string;
  @ApiProperty({ example: 'https://shop.example.com' }) url!: string;
}
export class LinkpageTarget {
  @ApiProperty({ enum: ['linkpage'] }) type!: string;
  @ApiProperty({ example: 'Find us online' }) title!: string;
  @ApiPropertyOptional({ example: 'Everything we do, one tap away.' }) description?: string;
  @ApiProperty({ type: [PageLink] }) links!: PageLink[];
}
class FormField {
  @ApiProperty({ example: 'email', pattern: '^[a-z][a-z0-9_]*$' }) name!: string;
  @ApiProperty({ example: 'Your e-mail' }) label!: string;
  @ApiPropertyOptional({ enum: FORM_FIELD_TYPES, default: 'text' }) type?: string;
  @ApiPropertyOptional({ default: false }) required?: boolean;
}
export class FormTarget {
  @ApiProperty({ enum: ['form'] }) type!: string;
  @ApiProperty({ example: 'Join our newsletter' }) title!: string;
  @ApiProperty({ type: [FormField] }) fields!: FormField[];
  @ApiPropertyOptional({ example: 'I agree to receive e-mails.' }) consent_text?: string;
}
class MenuItem {
  @ApiProperty({ example: 'Espresso' }) name!: string;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string', maxLength: 50, nullable: true }, { type: 'number' }],
    example: '2.50',
    description: 'Shown as written: a text such as `€2.50` or `market price` (at most 50 characters), or a number',
  })
  price?: string | number | null;
  @ApiPropertyOptional({ example: 'Double shot, whole milk' }) description?: string;
}
class MenuSection {
  @ApiProperty({ example: 'Coffee' }) name!: string;
  @ApiProperty({ type: [MenuItem] }) items!: MenuItem[];
}
export class MenupageTarget {
  @ApiProperty({ enum: ['menupage'] }) type!: string;
  @ApiProperty({ example: 'Menu' }) title!: string;
  @ApiProperty({ type: [MenuSection] }) sections!: MenuSection[];
}

/** Page-holding types: hosted on the scan host, editable: false, never re-pointed through the API. */
function page(
  type: string,
  own: Pick<TargetHandler, 'schema' | 'scan' | 'takesLeads'>,
  fields: string[],
  read: (r: FieldReader) => StoredTarget,
  summary?: TargetHandler['summary'],
): TargetHandler {
  return {
    type,
    ...own,
    staticCapable: false,
    pageHolding: true,
    parse(r) {
      r.only(fields);
      return read(r);
    },
    patch: () => refuseTargetPatch(type),
    payload() {
      throw new Error(`${type} codes are dynamic only`);
    },
    summary,
  };
}

const IOS = /iPhone|iPad|iPod/;
const ANDROID = /Android/;

/** iOS → ios_url, Android → android_url; any other device (or a missing store link) gets the page. */
function storeLocation(t: StoredTarget, userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const field = IOS.test(userAgent) ? 'ios_url' : ANDROID.test(userAgent) ? 'android_url' : null;
  const url = field ? t[field] : null;
  return typeof url === 'string' && url ? headerSafeUrl(url) : null;
}

export const appstoresHandler = page(
  'appstores',
  { schema: AppstoresTarget, scan: { agentLocation: storeLocation, page: (c) => appstoresPage(c.target) } },
  ['ios_url', 'android_url', 'fallback_url'],
  (r) => {
  const ios = r.url('ios_url') ?? null;
  const android = r.url('android_url') ?? null;
  if (!ios && !android) r.fail('ios_url', `or ${r.field('android_url')} is required`);
  return { ios_url: ios, android_url: android, fallback_url: r.url('fallback_url') ?? null };
  },
);

export const reviewHandler = page('review', { schema: ReviewTarget, scan: { page: (c) => reviewPage(c.target) } }, ['review_page'], (r) => {
  const p = r.object('review_page', { required: true })!;
  p.only(['title', 'links', 'feedback_email']);
  const links = p.array('links', { required: true, min: 1, max: 20 })!.map((l) => {
    l.only(['platform', 'url']);
    return { platform: l.string('platform', { required: true, max: 50 }), url: l.url('url', { required: true }) };
  });
  return { review_page: { title: p.string('title', { required: true, max: 255 }), links, feedback_email: p.email('feedback_email') ?? null } };
}, (t) => {
  const p = t.review_page as { title: string; links: unknown[] };
  return { title: p.title, link_count: p.links.length };
});

export const linkpageHandler = page(
  'linkpage',
  { schema: LinkpageTarget, scan: { page: (c) => linkPage(c.target) } },
  ['title', 'description', 'links'],
  (r) => ({
    title: r.string('title', { required: true, max: 255 }),
    description: r.string('description', { max: 1000 }) ?? null,
    links: r.array('links', { required: true, min: 1, max: 50 })!.map((l) => {
      l.only(['title', 'url']);
      return { title: l.string('title', { required: true, max: 255 }), url: l.url('url', { required: true }) };
    }),
  }),
  (t) => ({ title: t.title, link_count: (t.links as unknown[]).length }),
);

export const formHandler = page(
  'form',
  { schema: FormTarget, takesLeads: true, scan: { page: (c) => renderFormPage(c) } },
  ['title', 'fields', 'consent_text'],
  (r) => {
    const names = new Set<string>();
    const fields = r.array('fields', { required: true, min: 1, max: 20 })!.map((f) => {
      f.only(['name', 'label', 'type', 'required']);
      const name = f.string('name', { required: true, max: 40 })!;
      if (!/^[a-z][a-z0-9_]*$/.test(name)) f.fail('name', 'must start with a letter and use only a-z, 0-9 and _');
      // The page's own inputs, and names of Object.prototype members (`constructor`): no post could carry those.
      if (['consent', 'website', 'company_website'].includes(name) || isPrototypeName(name)) f.fail('name', 'is reserved');
      if (names.has(name)) f.fail('name', `repeats '${name}'`);
      names.add(name);
      return {
        name,
        label: f.string('label', { required: true, max: 255 }),
        type: f.oneOf('type', FORM_FIELD_TYPES) ?? 'text',
        required: f.boolean('required') ?? false,
      };
    });
    return {
      title: r.string('title', { required: true, max: 255 }),
      fields,
      consent_text: r.string('consent_text', { max: 1000 }) ?? 'I agree that my details are stored and used to contact me.',
    };
  },
  (t, counts) => ({ title: t.title, field_count: (t.fields as unknown[]).length, lead_count: counts.leadCount }),
);

export const menupageHandler = page(
  'menupage',
  { schema: MenupageTarget, scan: { page: (c) => menuPage(c.target) } },
  ['title', 'sections'],
  (r) => ({
    title: r.string('title', { required: true, max: 255 }),
    sections: r.array('sections', { required: true, min: 1, max: 50 })!.map((s) => {
      s.only(['name', 'items']);
      return {
        name: s.string('name', { required: true, max: 255 }),
        items: s.array('items', { required: true, min: 0, max: 200 })!.map((i) => {
          i.only(['name', 'price', 'description']);
          const price = i.input.price;
          if (price !== undefined && price !== null && typeof price !== 'string' && typeof price !== 'number') {
            i.fail('price', 'must be a string or a number');
          }
          if (typeof price === 'string' && characters(price) > 50) i.fail('price', 'must be at most 50 characters');
          // JSON's 1e999 arrives as Infinity (stored as null by JSON); past 10^15 a number prints in exponent form.
          if (typeof price === 'number' && !(Math.abs(price) < 1e15)) i.fail('price', 'must be a number below 1000000000000000, or a string');
          return { name: i.string('name', { required: true, max: 255 }), price: price ?? null, description: i.string('description', { max: 1000 }) ?? null };
        }),
      };
    }),
  }),
  (t) => ({ title: t.title, item_count: (t.sections as Array<{ items: unknown[] }>).reduce((n, s) => n + s.items.length, 0) }),
);
