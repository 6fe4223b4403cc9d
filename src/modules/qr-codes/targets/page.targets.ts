import { ApiException } from '../../../common/errors/api.exception';
import type { FieldReader } from './fields';
import type { StoredTarget, TargetHandler } from './target-handler';

/** Page-holding types: hosted on the scan host, editable: false, never re-pointed through the API. */
function page(type: string, fields: string[], read: (r: FieldReader) => StoredTarget, summary?: TargetHandler['summary']): TargetHandler {
  return {
    type,
    staticCapable: false,
    pageHolding: true,
    parse(r) {
      r.only(fields);
      return read(r);
    },
    patch() {
      throw new ApiException('target_not_editable', `The target of a ${type} code cannot be changed through the API`);
    },
    payload() {
      throw new Error(`${type} codes are dynamic only`);
    },
    summary,
  };
}

export const appstoresHandler = page('appstores', ['ios_url', 'android_url', 'fallback_url'], (r) => {
  const ios = r.url('ios_url') ?? null;
  const android = r.url('android_url') ?? null;
  if (!ios && !android) r.fail('ios_url', 'or target.android_url is required');
  return { ios_url: ios, android_url: android, fallback_url: r.url('fallback_url') ?? null };
});

export const reviewHandler = page('review', ['review_page'], (r) => {
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

export const FORM_FIELD_TYPES = ['text', 'email', 'phone', 'textarea', 'number', 'date', 'checkbox'] as const;

export const formHandler = page(
  'form',
  ['title', 'fields', 'consent_text'],
  (r) => {
    const names = new Set<string>();
    const fields = r.array('fields', { required: true, min: 1, max: 20 })!.map((f) => {
      f.only(['name', 'label', 'type', 'required']);
      const name = f.string('name', { required: true, max: 40 })!;
      if (!/^[a-z][a-z0-9_]*$/.test(name)) f.fail('name', 'must start with a letter and use only a-z, 0-9 and _');
      if (['consent', 'website', 'company_website'].includes(name)) f.fail('name', 'is reserved');
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
          if (typeof price === 'string' && price.length > 50) i.fail('price', 'must be at most 50 characters');
          return { name: i.string('name', { required: true, max: 255 }), price: price ?? null, description: i.string('description', { max: 1000 }) ?? null };
        }),
      };
    }),
  }),
  (t) => ({ title: t.title, item_count: (t.sections as Array<{ items: unknown[] }>).reduce((n, s) => n + s.items.length, 0) }),
);
