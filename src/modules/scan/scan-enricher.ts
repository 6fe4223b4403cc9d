import { LRUCache } from 'lru-cache';
import { geolocate, isBot, loadGeoIp, parseUserAgent, primaryLanguage, referrerHost, scanContext, type ScanRequestFacts } from './enrich';
import type { ScanContext } from './scan-contract';

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

  /** The same ScanContext as enrich(facts), with the user-agent part from the memo. */
  context(facts: ScanRequestFacts, ua: UserAgentFacts): ScanContext {
    return scanContext(geolocate(facts.ip), ua, referrerHost(facts.referer), this.language(facts.acceptLanguage));
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
