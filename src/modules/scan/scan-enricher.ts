import { LRUCache } from 'lru-cache';
import { geolocate, isBot, loadGeoIp, parseUserAgent, primaryLanguage, referrerHost } from './enrich';
import type { CachedCode, ScanContext, ScanRecord } from './scan-contract';

interface UserAgentFacts extends Pick<ScanContext, 'device' | 'os' | 'browser'> {
  bot: boolean;
}

const NO_USER_AGENT: UserAgentFacts = { bot: true, device: null, os: null, browser: null };
/** Longer user agents are parsed every time rather than kept as cache keys. */
const MAX_KEY_LENGTH = 512;

/**
 * enrich.ts on the hot path. Parsing a user agent (isbot's pattern and ua-parser-js) costs about 30 µs, half a
 * redirect's budget, and scans repeat a small set of user agents: those two results are memoized per user-agent
 * string. Geolocation, referrer and language are worked out for every scan (as enrich() does), and the IP is never a
 * cache key.
 */
export class ScanEnricher {
  constructor() {
    loadGeoIp(); // at start-up, not on the first scan
  }

  private readonly userAgents = new LRUCache<string, UserAgentFacts>({ max: 2_000 });
  /** Accept-Language header → primary language; a few hundred distinct headers cover nearly every visitor. */
  private readonly languages = new LRUCache<string, { language: string | null }>({ max: 1_000 });
  /** The ISO time of the last millisecond a scan was counted in (a busy host counts many scans per millisecond). */
  private lastMs = 0;
  private lastIso = '';

  userAgent(userAgent: string | undefined): UserAgentFacts {
    if (!userAgent) return NO_USER_AGENT;
    const known = this.userAgents.get(userAgent);
    if (known) return known;
    const facts = { bot: isBot(userAgent), ...parseUserAgent(userAgent) };
    if (userAgent.length <= MAX_KEY_LENGTH) this.userAgents.set(userAgent, facts);
    return facts;
  }

  /**
   * The ScanRecord of one scan: the same values as enrich({ ip, referer, acceptLanguage, userAgent }), with the user-agent part from the memo, built in
   * one object (no intermediate facts or context objects on the hot path).
   */
  record(id: string, code: CachedCode, ua: UserAgentFacts, ip: string | undefined, referer: string | undefined, acceptLanguage: string | undefined): ScanRecord {
    const place = geolocate(ip);
    return {
      id,
      qr_code_id: code.id,
      organization_id: code.organizationId,
      scanned_at: this.now(),
      country: place.country,
      city: place.city,
      device: ua.device,
      os: ua.os,
      browser: ua.browser,
      referrer: referrerHost(referer),
      language: this.language(acceptLanguage),
    };
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

  private language(acceptLanguage: string | undefined): string | null {
    if (!acceptLanguage) return null;
    const known = this.languages.get(acceptLanguage);
    if (known) return known.language;
    const language = primaryLanguage(acceptLanguage);
    if (acceptLanguage.length <= MAX_KEY_LENGTH) this.languages.set(acceptLanguage, { language });
    return language;
  }
}
