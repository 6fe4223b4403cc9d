import { isBot, parseUserAgent, type Place, primaryLanguage, referrerHost } from './enrich';
import { GeoCache } from './geo-cache';
import type { CachedCode, ScanContext, ScanRecord } from './scan-contract';
import { StringMemo } from './string-memo';

export interface UserAgentFacts extends Pick<ScanContext, 'device' | 'os' | 'browser'> {
  bot: boolean;
}

const NO_USER_AGENT: UserAgentFacts = { bot: true, device: null, os: null, browser: null };
/** Longer user agents are parsed every time rather than kept. */
const MAX_KEY_LENGTH = 512;

const userAgentFacts = (userAgent: string): UserAgentFacts => ({ bot: isBot(userAgent), ...parseUserAgent(userAgent) });

/**
 * enrich.ts on the hot path. Parsing a user agent (isbot's pattern and ua-parser-js) costs about 30 µs, half a
 * redirect's budget, and scans repeat a small set of user agents: those two results are memoized per user-agent
 * string, and the primary language per Accept-Language string (string-memo.ts: no full-string hashing per request).
 * Geolocation goes through geo-cache.ts (GeoLite2 networks recently answered, exact per address); the referrer is
 * worked out for every scan. The IP is never a cache key.
 */
export class ScanEnricher {
  /** A few thousand distinct user agents cover nearly every visitor. */
  private readonly userAgents = new StringMemo<UserAgentFacts>(4_096, userAgentFacts, MAX_KEY_LENGTH);
  /** Accept-Language header → primary language; a few hundred distinct headers cover nearly every visitor. */
  private readonly languages = new StringMemo<string | null>(1_024, primaryLanguage, MAX_KEY_LENGTH);
  /** Absent in an enricher made without geolocation (the scan encoder's thread: the place comes with the scan). */
  private readonly geo?: GeoCache;

  /** `geolocate: false`: no GeoLite2 data is loaded (about 150 MB), and place() is not available. */
  constructor(opts: { geolocate?: boolean } = {}) {
    if (opts.geolocate !== false) this.geo = new GeoCache();
  }

  userAgent(userAgent: string | undefined): UserAgentFacts {
    return userAgent ? this.userAgents.get(userAgent) : NO_USER_AGENT;
  }

  /**
   * The ScanRecord of one scan: the same values as enrich({ ip, referer, acceptLanguage, userAgent }), with the
   * user-agent part from the memo and the place the hot path looked up, built in one object (no intermediate facts or
   * context objects). The visitor is set by the caller (visitor-salt.ts), in the same object shape.
   */
  record(
    id: string,
    code: Pick<CachedCode, 'id' | 'organizationId'>,
    ua: UserAgentFacts,
    referer: string | undefined,
    acceptLanguage: string | undefined,
    outcome: { ruleId: string | null | undefined; arm: number | null; expired: boolean },
    place: Pick<Place, 'country' | 'city'>,
    scannedAt: string,
  ): ScanRecord {
    return {
      id,
      qr_code_id: code.id,
      organization_id: code.organizationId,
      scanned_at: scannedAt,
      visitor: null,
      country: place.country,
      city: place.city,
      device: ua.device,
      os: ua.os,
      browser: ua.browser,
      referrer: referrerHost(referer),
      language: acceptLanguage ? this.languages.get(acceptLanguage) : null,
      rule_id: outcome.ruleId, // absent (undefined): no rule decided this scan
      arm: outcome.arm,
      expired: outcome.expired,
    };
  }

  /** Where an address is (geo-cache.ts), region included: for smart-URL rules. */
  place(ip: string | undefined): Place {
    if (!this.geo) throw new Error('this enricher was made without geolocation');
    return this.geo.locate(ip);
  }
}
