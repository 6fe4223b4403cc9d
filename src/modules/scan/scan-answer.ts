import { hostedPage } from '../targets/registry';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import type { Decider, Decision, FactNeeds, VisitorFacts } from '../targets/smart-rules';
import { renderExpiredPage, renderPasswordPage } from '../hosted-pages/link-control-pages';
import type { CachedCode } from './scan-contract';
import { isFollowUpExpired } from './unlock-cookie';
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
  /** Smart-URL rules compiled once per cache fill (qr-codes/targets/smart-rules.ts), else null. */
  decide?: Decider | null;
  /** The code has link controls (expiry, scan limit or password): the answer asks ScanAnswerRequest.gate. */
  gated?: boolean;
}

/** What link controls and rules need to know about a scan, asked only for codes that have them. */
export interface ScanGate {
  /** epoch ms */
  now: number;
  /** counted scans of the code so far (scan-numbers.ts) */
  scansSoFar(code: CachedCode): number;
  /** the request carries a valid unlock cookie for the code's current password */
  unlocked(code: CachedCode): boolean;
  /** the request carries the scan pass the code's page gave it (unlock-cookie.ts scanPassSetCookie) */
  holdsScanPass(code: CachedCode): boolean;
  /** the visitor's facts for smart-URL rules (scan number included); those the rules do not read may be null */
  visitor(code: CachedCode, needs: FactNeeds): VisitorFacts;
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
  | { location: string; page?: undefined; countable: boolean; decision?: Decision; expired?: boolean }
  | { location?: undefined; page: HostedResponse; countable: boolean; decision?: undefined; expired?: boolean };

export interface ScanAnswerRequest {
  suffix: ScanSuffix;
  userAgent: string | undefined;
  scanBaseUrl: string;
  /** required for entries with `decide` or `gated` */
  gate?: ScanGate;
}

/** Whether the code's expiry date or scan limit has passed. */
export function isExpired(code: CachedCode, gate: Pick<ScanGate, 'now' | 'scansSoFar'>): boolean {
  const { expiresAt, maxScans } = code;
  return (expiresAt != null && gate.now >= expiresAt) || (maxScans != null && gate.scansSoFar(code) >= maxScans);
}

/**
 * What the scan host answers for a short code. `countable` is true for a live, active code answered with its redirect
 * or its page (never a status page or a download); the caller still leaves out HEAD requests and bots.
 */
export function answerScan(entry: ScanEntry, req: ScanAnswerRequest): ScanAnswer {
  const code = entry.code;
  if (!code || code.status === 'trashed') return { page: renderStatusPage(404), countable: false };
  if (code.status !== 'live' || !code.isActive) return { page: renderStatusPage(410), countable: false };
  if (entry.gated || entry.decide) return gatedAnswer(entry, code, req, req.gate!);
  return plainAnswer(entry, code, req);
}

/**
 * A code with link controls or rules: expired (counted apart: 302 to expired_url or the 410 expired page), then the
 * password page until the visitor holds the unlock cookie, then the rules' decision or the code's usual answer.
 */
function gatedAnswer(entry: ScanEntry, code: CachedCode, req: ScanAnswerRequest, gate: ScanGate): ScanAnswer {
  if (entry.gated) {
    if (req.suffix !== '') {
      if (isFollowUpExpired(code, gate)) return { page: renderExpiredPage(), countable: false };
    } else if (isExpired(code, gate)) {
      return code.expiredUrl ? { location: code.expiredUrl, countable: true, expired: true } : { page: renderExpiredPage(), countable: true, expired: true };
    }
    if (code.passwordTag && !gate.unlocked(code)) return { page: renderPasswordPage(code.shortCode), countable: false };
  }
  if (entry.decide && req.suffix === '') {
    const decision = entry.decide(gate.visitor(code, entry.decide.needs), Math.random);
    return { location: decision.location, countable: true, decision };
  }
  return plainAnswer(entry, code, req);
}

function plainAnswer(entry: ScanEntry, code: CachedCode, req: ScanAnswerRequest): ScanAnswer {
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
