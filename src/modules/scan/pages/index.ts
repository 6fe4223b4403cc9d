import type { CachedCode } from '../scan-contract';
import { emailPage, eventDownload, eventPage, smsPage, textPage, vcardDownload, vcardPage, wifiPage } from './content-pages';
import { renderFormPage } from './form-page';
import { page } from './layout';
import { appstoresPage, linkPage, menuPage, reviewPage } from './link-pages';

/** A complete answer the scan host writes as is (status, headers including Content-Type and CSP, body). */
export interface HostedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface HostedPageRequest {
  /** '' for the page itself, '.vcf' (vcard codes) or '.ics' (event codes) for the download. */
  suffix: '' | '.vcf' | '.ics';
  userAgent?: string;
  /** SCAN_BASE_URL. The pages link to their download and post their form with host-relative URLs instead, so they
   * work unchanged on whichever host served them and stay inside `form-action 'self'`. */
  scanBaseUrl: string;
}

/** Page-served types and their renderers (pure: no I/O, templates with every value escaped). */
const PAGES: Record<string, (code: CachedCode) => HostedResponse | null> = {
  wifi: (c) => wifiPage(c.target),
  text: (c) => textPage(c.target),
  vcard: (c) => vcardPage(c.target, c.shortCode),
  event: (c) => eventPage(c.target, c.shortCode),
  email: (c) => emailPage(c.target),
  sms: (c) => smsPage(c.target),
  review: (c) => reviewPage(c.target),
  linkpage: (c) => linkPage(c.target),
  menupage: (c) => menuPage(c.target),
  form: (c) => renderFormPage(c),
  appstores: (c) => appstoresPage(c.target),
};

/**
 * The hosted page (or .vcf/.ics download) of a live, active code whose type is page-served: wifi, text, vcard,
 * event, email, sms, review, linkpage, menupage, form, and appstores when the user agent is neither iOS nor Android.
 * Returns null when the type has no page or the suffix does not apply to it (the caller answers 404).
 */
export function renderHostedPage(code: CachedCode, req: HostedPageRequest): HostedResponse | null {
  if (req.suffix === '.vcf') return code.type === 'vcard' ? vcardDownload(code.target) : null;
  if (req.suffix === '.ics') return code.type === 'event' ? eventDownload(code.target, code.id) : null;
  if (req.suffix !== '') return null;
  return PAGES[code.type]?.(code) ?? null;
}

const NOT_FOUND = page(404, 'Not found', '<h1>This code does not exist</h1>\n<p class="muted">Check the link or scan the code again.</p>');
const GONE = page(410, 'No longer active', '<h1>This code is no longer active</h1>\n<p class="muted">Its owner has switched it off.</p>');

const NOT_FOUND_BODY = Buffer.from(NOT_FOUND.body);
const GONE_BODY = Buffer.from(GONE.body);

/** 404 (unknown or trashed code) or 410 (inactive or paused) page. */
export function renderStatusPage(status: 404 | 410): HostedResponse {
  const r = status === 410 ? GONE : NOT_FOUND;
  return { status: r.status, headers: { ...r.headers }, body: status === 410 ? GONE_BODY : NOT_FOUND_BODY };
}
