import { hostedPage } from '../targets/registry';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import type { CachedCode } from './scan-contract';
import { userAgentLocation } from './scan-destination';
import { renderStatusPage } from '../hosted-pages/status-pages';

/** '' (the page) or one of the download suffixes the target types serve (registry DOWNLOAD_SUFFIXES: `.vcf`, `.ics`). */
export type ScanSuffix = string;

/** A code as the scan process keeps it in memory. */
export interface ScanEntry {
  /** null: no dynamic code has this short code on the request's host (static codes included), or the host is unknown. */
  code: CachedCode | null;
  /** The visitor-independent redirect (scan-destination.ts fixedLocation), computed once per cache fill. */
  location: string | null;
  /** Hosted pages and downloads rendered so far for this cache fill, by suffix (they do not depend on the visitor). */
  pages?: Partial<Record<ScanSuffix, HostedResponse | null>>;
}

const MAX_KEPT_PAGE = 256 * 1024;

/** The page or download of this entry for `suffix`, rendered once per cache fill, body as bytes. */
function hosted(entry: ScanEntry, code: CachedCode, req: ScanAnswerRequest): HostedResponse | null {
  const pages = (entry.pages ??= {});
  let page = pages[req.suffix];
  if (page === undefined) {
    const rendered = hostedPage(code.type, code, req.suffix);
    page = rendered && { ...rendered, body: typeof rendered.body === 'string' ? Buffer.from(rendered.body) : rendered.body };
    // Pages up to MAX_KEPT_PAGE bytes are kept for the next scans; a larger one is rendered each time.
    if (!page || page.body.length <= MAX_KEPT_PAGE) pages[req.suffix] = page;
  }
  return page;
}

export type ScanAnswer =
  | { location: string; page?: undefined; countable: boolean }
  | { location?: undefined; page: HostedResponse; countable: boolean };

export interface ScanAnswerRequest {
  suffix: ScanSuffix;
  userAgent: string | undefined;
  scanBaseUrl: string;
}

/**
 * What the scan host answers for a short code. `countable` is true for a live, active code answered with its redirect
 * or its page (never a status page or a download); the caller still leaves out HEAD requests and bots.
 */
export function answerScan(entry: ScanEntry, req: ScanAnswerRequest): ScanAnswer {
  const code = entry.code;
  if (!code || code.status === 'trashed') return { page: renderStatusPage(404), countable: false };
  if (code.status !== 'live' || !code.isActive) return { page: renderStatusPage(410), countable: false };
  if (req.suffix !== '') {
    return { page: hosted(entry, code, req) ?? renderStatusPage(404), countable: false };
  }
  if (entry.location) return { location: entry.location, countable: true };
  const byAgent = userAgentLocation(code, req.userAgent);
  if (byAgent) return { location: byAgent, countable: true };
  const page = hosted(entry, code, req);
  if (!page) return { page: renderStatusPage(404), countable: false };
  return { page, countable: page.status >= 200 && page.status < 400 };
}
