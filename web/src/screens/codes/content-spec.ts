/**
 * What the content editor shows for each page-holding type: the fields of the type's target at creation (minus `type`),
 * as the API's PUT /v1/qr-codes/{id}/content takes them. Lists edit arrays of objects (links, form fields, menu
 * sections and their items); groups edit nested objects (a review page).
 */
export type FieldSpec =
  | { key: string; label: string; kind: 'text' | 'url' | 'email' | 'textarea' | 'checkbox'; hint?: string }
  /** A menu price: text, sent as a JSON number when it is a plain decimal (`4.5`), as the API keeps numbers apart. */
  | { key: string; label: string; kind: 'price'; hint?: string }
  | { key: string; label: string; kind: 'file'; hint?: string }
  | { key: string; label: string; kind: 'select'; options: readonly string[]; hint?: string }
  | { key: string; label: string; kind: 'list'; item: string; fields: FieldSpec[]; max?: number }
  | { key: string; label: string; kind: 'group'; fields: FieldSpec[] };

const FILE: FieldSpec[] = [
  { key: 'file_id', label: 'File', kind: 'file' },
  { key: 'title', label: 'Title', kind: 'text' },
  { key: 'description', label: 'Description', kind: 'textarea' },
];

export const CONTENT_SPECS: Record<string, FieldSpec[]> = {
  linkpage: [
    { key: 'title', label: 'Title', kind: 'text' },
    { key: 'description', label: 'Description', kind: 'textarea' },
    { key: 'links', label: 'Links', kind: 'list', item: 'Link', fields: [{ key: 'title', label: 'title', kind: 'text' }, { key: 'url', label: 'URL', kind: 'url' }] },
  ],
  form: [
    { key: 'title', label: 'Title', kind: 'text' },
    {
      key: 'fields',
      label: 'Form fields',
      kind: 'list',
      item: 'Field',
      fields: [
        { key: 'name', label: 'name', kind: 'text', hint: 'The key of the answer, e.g. email' },
        { key: 'label', label: 'label', kind: 'text' },
        { key: 'type', label: 'type', kind: 'select', options: ['text', 'email', 'phone', 'textarea', 'number', 'date', 'checkbox'] },
        { key: 'required', label: 'required', kind: 'checkbox' },
      ],
    },
    { key: 'consent_text', label: 'Consent text', kind: 'textarea' },
  ],
  menupage: [
    { key: 'title', label: 'Title', kind: 'text' },
    {
      key: 'sections',
      label: 'Sections',
      kind: 'list',
      item: 'Section',
      fields: [
        { key: 'name', label: 'name', kind: 'text' },
        { key: 'items', label: 'dishes', kind: 'list', item: 'dish', fields: [{ key: 'name', label: 'name', kind: 'text' }, { key: 'price', label: 'price', kind: 'price' }, { key: 'description', label: 'description', kind: 'text' }] },
      ],
    },
  ],
  review: [
    {
      key: 'review_page',
      label: 'Review page',
      kind: 'group',
      fields: [
        { key: 'title', label: 'Title', kind: 'text' },
        { key: 'links', label: 'Review sites', kind: 'list', item: 'Site', fields: [{ key: 'platform', label: 'platform', kind: 'text', hint: 'e.g. google' }, { key: 'url', label: 'URL', kind: 'url' }] },
        { key: 'feedback_email', label: 'Feedback e-mail', kind: 'email' },
      ],
    },
  ],
  appstores: [
    { key: 'ios_url', label: 'App Store URL', kind: 'url' },
    { key: 'android_url', label: 'Google Play URL', kind: 'url' },
    { key: 'fallback_url', label: 'Fallback URL', kind: 'url', hint: 'Where other devices go' },
  ],
  file: FILE,
  audio: FILE,
  video: FILE,
};

type Json = Record<string, unknown>;

/** The editable part of a stored target, following the spec (drops `type`, `destination`, `summary`, …). */
export function pick(spec: FieldSpec[], value: unknown): Json {
  const v = (value && typeof value === 'object' ? value : {}) as Json;
  const out: Json = {};
  for (const f of spec) {
    if (f.kind === 'list') out[f.key] = Array.isArray(v[f.key]) ? (v[f.key] as unknown[]).map((x) => pick(f.fields, x)) : [];
    else if (f.kind === 'group') out[f.key] = pick(f.fields, v[f.key]);
    else if (f.kind === 'checkbox') out[f.key] = v[f.key] === true;
    else out[f.key] = typeof v[f.key] === 'string' ? v[f.key] : v[f.key] === undefined || v[f.key] === null ? '' : String(v[f.key]);
  }
  return out;
}

/** The body to send: blank texts left out (optional fields stay unset; a missing required one is named by the API). */
export function toBody(spec: FieldSpec[], value: Json): Json {
  const out: Json = {};
  for (const f of spec) {
    const x = value[f.key];
    if (f.kind === 'list') out[f.key] = ((x as Json[]) ?? []).map((i) => toBody(f.fields, i));
    else if (f.kind === 'group') out[f.key] = toBody(f.fields, (x as Json) ?? {});
    else if (f.kind === 'checkbox') out[f.key] = x === true;
    else if (f.kind === 'price' && typeof x === 'string' && /^\d{1,15}(\.\d+)?$/.test(x.trim())) out[f.key] = Number(x.trim());
    else if (typeof x === 'string' && x.trim() !== '') out[f.key] = x.trim();
  }
  return out;
}

/** Every path the form shows (`links.2.url`, `review_page.links.0`…), for fieldErrors. */
export function paths(spec: FieldSpec[], value: Json, prefix = ''): string[] {
  const out: string[] = [];
  for (const f of spec) {
    const p = prefix ? `${prefix}.${f.key}` : f.key;
    out.push(p);
    if (f.kind === 'list') ((value[f.key] as Json[]) ?? []).forEach((item, i) => out.push(`${p}.${i}`, ...paths(f.fields, item, `${p}.${i}`)));
    if (f.kind === 'group') out.push(...paths(f.fields, (value[f.key] as Json) ?? {}, p));
  }
  return out;
}

/** An empty item of a list. */
export function blank(spec: FieldSpec[]): Json {
  return pick(spec, {});
}
