import type { HostedResponse } from './hosted-response';
import { esc, page } from './layout';

export const FORM_FIELD_TYPES = ['text', 'email', 'phone', 'textarea', 'number', 'date', 'checkbox'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

export interface FormField {
  name: string;
  label: string;
  type: FormFieldType;
  required: boolean;
}

export interface FormDefinition {
  title: string;
  fields: FormField[];
  consentText: string;
}

/** The name of the required consent checkbox and of the honeypot (both reserved: no form field may use them). */
export const CONSENT_FIELD = 'consent';
export const HONEYPOT_FIELD = 'website';
/** Longest value any field accepts. */
export const FIELD_MAX_LENGTH = 1000;

const DEFAULT_CONSENT = 'I agree that my details are stored and used to contact me.';

/** The stored `form` target as the page and the lead form read it; null when it is not a usable form. */
export function formDefinition(target: Record<string, unknown>): FormDefinition | null {
  if (typeof target.title !== 'string' || !Array.isArray(target.fields)) return null;
  const fields = (target.fields as Array<Record<string, unknown>>)
    .filter((f) => f && typeof f.name === 'string' && /^[a-z][a-z0-9_]*$/.test(f.name) && f.name !== CONSENT_FIELD && f.name !== HONEYPOT_FIELD)
    .map((f) => ({
      name: f.name as string,
      label: typeof f.label === 'string' ? f.label : (f.name as string),
      type: (FORM_FIELD_TYPES as readonly unknown[]).includes(f.type) ? (f.type as FormFieldType) : 'text',
      required: f.required === true,
    }));
  const consentText = typeof target.consent_text === 'string' && target.consent_text ? target.consent_text : DEFAULT_CONSENT;
  return { title: target.title, fields, consentText };
}

/** What a re-rendered form shows: the submitted values (checkboxes: 'yes' when ticked) and one message per field. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

const INPUT_TYPES: Record<FormFieldType, string> = {
  text: 'text',
  email: 'email',
  phone: 'tel',
  textarea: '',
  number: 'number',
  date: 'date',
  checkbox: 'checkbox',
};

/** Autofill hints for the usual contact fields (by name, else by type). */
function autocomplete(f: FormField): string {
  const byName: Record<string, string> = { name: 'name', full_name: 'name', first_name: 'given-name', last_name: 'family-name', company: 'organization', email: 'email', phone: 'tel' };
  const hint = byName[f.name] ?? (f.type === 'email' ? 'email' : f.type === 'phone' ? 'tel' : null);
  return hint ? ` autocomplete="${hint}"` : '';
}

function control(f: FormField, value: string, error: string | undefined): string {
  const id = `f-${f.name}`;
  const aria = `${f.required ? ' required aria-required="true"' : ''}${error ? ` aria-invalid="true" aria-describedby="${esc(id)}-error"` : ''}`;
  const mark = f.required ? ' <span class="req" aria-hidden="true">*</span>' : '';
  const message = error ? `\n<p class="error" id="${esc(id)}-error">${esc(error)}</p>` : '';
  if (f.type === 'checkbox') {
    return `<div class="field">
<div class="check"><input type="checkbox" id="${esc(id)}" name="${esc(f.name)}" value="yes"${value ? ' checked' : ''}${aria}><label for="${esc(id)}">${esc(f.label)}${mark}</label></div>${message}
</div>`;
  }
  const label = `<label for="${esc(id)}">${esc(f.label)}${mark}</label>`;
  if (f.type === 'textarea') {
    return `<div class="field">
${label}
<textarea id="${esc(id)}" name="${esc(f.name)}" maxlength="${FIELD_MAX_LENGTH}" rows="5"${aria}>${esc(value)}</textarea>${message}
</div>`;
  }
  const extra = f.type === 'number' ? ' inputmode="decimal" step="any"' : f.type === 'phone' ? ' inputmode="tel"' : '';
  return `<div class="field">
${label}
<input type="${INPUT_TYPES[f.type]}" id="${esc(id)}" name="${esc(f.name)}" value="${esc(value)}" maxlength="${FIELD_MAX_LENGTH}"${extra}${autocomplete(f)}${aria}>${message}
</div>`;
}

/**
 * The form page; with `state`, the same form re-rendered after a refused post (status 400): values kept, each error
 * under its field and tied to it with aria-describedby, and a summary linking to each field. The form posts to the
 * same path it was served from (relative action: right on a custom domain too, and inside `form-action 'self'`).
 * `novalidate`: the server's messages are the single, accessible source of validation (the browser's bubbles are
 * neither styled nor reliably announced), while `required` still tells assistive technology what is required.
 */
export function renderFormPage(code: { shortCode: string; target: Record<string, unknown> }, state?: FormState, status = 200): HostedResponse | null {
  const form = formDefinition(code.target);
  if (!form) return null;
  const values = state?.values ?? {};
  const errors = state?.errors ?? {};
  const labels = new Map<string, string>([...form.fields.map((f) => [f.name, f.label] as const), [CONSENT_FIELD, 'Consent']]);
  const problems = [...form.fields.map((f) => f.name), CONSENT_FIELD].filter((n) => errors[n]);
  const summary = problems.length
    ? `<div class="summary" role="alert">
<h2>Please correct ${problems.length === 1 ? 'this problem' : `these ${problems.length} problems`}</h2>
<ul>
${problems.map((n) => `<li><a href="#f-${esc(n)}">${esc(labels.get(n))}: ${esc(errors[n])}</a></li>`).join('\n')}
</ul>
</div>`
    : '';
  const consentError = errors[CONSENT_FIELD];
  const body = `<h1>${esc(form.title)}</h1>
${summary}
<form method="post" action="/${esc(code.shortCode)}" accept-charset="utf-8" novalidate>
<p class="muted">Fields marked <span class="req">*</span> are required.</p>
${form.fields.map((f) => control(f, values[f.name] ?? '', errors[f.name])).join('\n')}
<div class="field">
<div class="check"><input type="checkbox" id="f-consent" name="${CONSENT_FIELD}" value="yes"${values[CONSENT_FIELD] ? ' checked' : ''} required aria-required="true"${consentError ? ' aria-invalid="true" aria-describedby="f-consent-error"' : ''}><label for="f-consent">${esc(form.consentText)} <span class="req" aria-hidden="true">*</span></label></div>${consentError ? `\n<p class="error" id="f-consent-error">${esc(consentError)}</p>` : ''}
</div>
<div class="hp" aria-hidden="true"><label for="f-website">Leave this field empty</label><input type="text" id="f-website" name="${HONEYPOT_FIELD}" value="" tabindex="-1" autocomplete="off"></div>
<div class="actions"><button type="submit">Send</button></div>
</form>`;
  return page(status, problems.length ? `Error: ${form.title}` : form.title, body);
}

/** After a stored post (and, identically, after a honeypot post that stored nothing). */
export function renderThankYouPage(target: Record<string, unknown>): HostedResponse {
  const title = typeof target.title === 'string' ? target.title : 'Thank you';
  return page(200, `Thank you: ${title}`, `<h1>Thank you</h1>\n<p>Your details have been sent.</p>\n<p class="muted">${esc(title)}</p>`);
}

/** Too many form posts from this client within the hour. */
export function renderTooManyRequestsPage(retryAfterSeconds: number): HostedResponse {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return page(
    429,
    'Too many submissions',
    `<h1>Too many submissions</h1>\n<p>Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>`,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  );
}
