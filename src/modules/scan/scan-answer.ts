import { type HostedResponse, renderHostedPage, renderStatusPage } from './pages';
import type { CachedCode } from './scan-contract';
import { appStoreLocation } from './scan-destination';

export type ScanSuffix = '' | '.vcf' | '.ics';

/** A code as the scan process keeps it in memory. */
export interface ScanEntry {
  /** null: no dynamic code has this short code on the default scan host (static codes included). */
  code: CachedCode | null;
  /** The visitor-independent redirect (scan-destination.ts fixedLocation), computed once per cache fill. */
  location: string | null;
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
 * or its page (never a status page or a .vcf/.ics download); the caller still leaves out HEAD requests and bots.
 */
export function answerScan(entry: ScanEntry, req: ScanAnswerRequest): ScanAnswer {
  const code = entry.code;
  if (!code || code.status === 'trashed') return { page: renderStatusPage(404), countable: false };
  if (code.status !== 'live' || !code.isActive) return { page: renderStatusPage(410), countable: false };
  if (req.suffix !== '') {
    const download = renderHostedPage(code, { suffix: req.suffix, userAgent: req.userAgent, scanBaseUrl: req.scanBaseUrl });
    return { page: download ?? renderStatusPage(404), countable: false };
  }
  if (entry.location) return { location: entry.location, countable: true };
  if (code.type === 'appstores') {
    const store = appStoreLocation(code, req.userAgent);
    if (store) return { location: store, countable: true };
  }
  const page = renderHostedPage(code, { suffix: '', userAgent: req.userAgent, scanBaseUrl: req.scanBaseUrl });
  if (!page) return { page: renderStatusPage(404), countable: false };
  return { page, countable: page.status >= 200 && page.status < 400 };
}
