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
  private readonly geo = new GeoCache();
  /** The ISO time of the last millisecond a scan was counted in (a busy host counts many scans per millisecond). */
  private lastMs = 0;
  private lastIso = '';

  userAgent(userAgent: string | undefined): UserAgentFacts {
    return userAgent ? this.userAgents.get(userAgent) : NO_USER_AGENT;
  }

  /**
   * The ScanRecord of one scan: the same values as enrich({ ip, referer, acceptLanguage, userAgent }), with the user-agent part from the memo, built in
   * one object (no intermediate facts or context objects on the hot path). `place`: the address's place when the
   * caller already looked it up (place()).
   */
  record(
    id: string,
    code: CachedCode,
    ua: UserAgentFacts,
    ip: string | undefined,
    referer: string | undefined,
    acceptLanguage: string | undefined,
    outcome?: { ruleId: string | null | undefined; arm: number | null; expired: boolean },
    place: Place = this.geo.locate(ip),
  ): ScanRecord {
    return {
      id,
      qr_code_id: code.id,
      organization_id: code.organizationId,
      scanned_at: this.now(),
      visitor: null, // set by the caller (visitor-salt.ts), in the same object shape
      country: place.country,
      city: place.city,
      device: ua.device,
      os: ua.os,
      browser: ua.browser,
      referrer: referrerHost(referer),
      language: acceptLanguage ? this.languages.get(acceptLanguage) : null,
      rule_id: outcome ? outcome.ruleId : undefined, // absent: no rule decided this scan
      arm: outcome ? outcome.arm : null,
      expired: outcome ? outcome.expired : false,
    };
  }

  /** Where an address is (geo-cache.ts), region included: for smart-URL rules. */
  place(ip: string | undefined): Place {
    return this.geo.locate(ip);
  }

  /** `new Date().toISOString()`, made once per millisecond. */
  now(): string {
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

}
