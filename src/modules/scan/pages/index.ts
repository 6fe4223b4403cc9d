import type { CachedCode } from '../scan-contract';

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
  /** SCAN_BASE_URL, for absolute links such as the .vcf/.ics download and the form's action. */
  scanBaseUrl: string;
}

/**
 * The hosted page (or .vcf/.ics download) of a live, active code whose type is page-served: wifi, text, vcard,
 * event, email, sms, review, linkpage, menupage, form, and appstores when the user agent is neither iOS nor Android.
 * Returns null when the type has no page or the suffix does not apply to it (the caller answers 404).
 * PLACEHOLDER: replaced by the hosted-pages work.
 */
export function renderHostedPage(code: CachedCode, req: HostedPageRequest): HostedResponse | null {
  void req;
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<!doctype html><title>${code.type}</title>` };
}

/** 404 (unknown or trashed code) or 410 (inactive or paused) page. PLACEHOLDER. */
export function renderStatusPage(status: 404 | 410): HostedResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: `<!doctype html><title>${status}</title>` };
}
