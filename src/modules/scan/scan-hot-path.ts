import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '../../common/redis/redis.provider';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { arrivedOverHttps, clientIp, parseTrustProxy, SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY, type TrustProxy } from '../../common/http/client-address';
import { countScanAnswer } from '../../common/metrics/metrics';
import { DomainHostCache } from '../domains/domain-host-cache';
import { hostnameOf, malformedHost, siteKey } from '../domains/scan-site';
import { pooledId } from './pooled-ids';
import { answerScan, type ScanAnswer, type ScanEntry, type ScanGate, type ScanSuffix } from './scan-answer';
import { deviceOf, type FactNeeds, osOf, type VisitorFacts } from '../targets/smart-rules';
import { preferredLanguage } from '../../common/http/accept-language';
import { ScanNumbers } from './scan-numbers';
import { StringMemo } from './string-memo';
import { holdsScanPass, isUnlocked, scanPassSetCookie } from './unlock-cookie';
import type { Place } from './enrich';
import { ScanBuffer } from './scan-buffer';
import { writeRedirect } from './redirect-head';
import { ScanCodeCache } from './scan-code-cache';
import type { CachedCode } from './scan-contract';
import { ScanEnricher, type UserAgentFacts } from './scan-enricher';
import type { ScanAccessLog } from './scan-access-log';
import { gs1Dictionary } from '../gs1/syntax-dictionary';
import { ownPathsOf } from '../qr-codes/code-kinds';
import { DOWNLOAD_SUFFIXES } from '../targets/registry';
import type { OwnPaths } from '../targets/target-handler';
import { OwnPathMemo } from './own-path-memo';
import { copyForeignHeaders, ownPathAnswer, type OwnPathResult, prepareOwnPathAnswer, type PreparedAnswer, writePreparedAnswer } from './scan-own-paths';

/** `/{short_code}` and `/{short_code}<suffix>` for the download suffixes the target types serve (`.vcf`, `.ics`), with
 * an optional trailing slash and any query string (ignored); `/metrics` (seven characters too, never a short code) goes
 * on to Nest. */
const SUFFIXES = DOWNLOAD_SUFFIXES.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
export const SCAN_PATH = new RegExp(`^/(?!metrics/?(?:\\?|$))([0-9A-Za-z]{7})(${SUFFIXES})?/?(?:\\?|$)`);
/** Any other one-segment path but `/health`, `/metrics` and `/images`: a mistyped or truncated scan URL, answered with the 404 page (HTML for a
 * person, not the API's JSON envelope). Deeper paths (`/images/…`) go on to Nest. */
const OTHER_ONE_SEGMENT = /^\/(?!(?:health|metrics|images)\/?(?:\?|$))[^/?]*\/?(?:\?|$)/;
const NO_CODE: ScanEntry = { code: null, location: null, decide: null, gated: false };
/** The test-only geolocation header (`US-CA` or `FR`), honoured only by a test process (see HotPathOptions.testGeoHeader). */
export const TEST_GEO_HEADER = 'scanlink-test-geo';
const TEST_GEO = /^([A-Z]{2})(?:-([A-Z0-9]{1,3}))?$/;

type Done = (status: number, requestId: string) => void;
const NO_LOG: Done = () => undefined;
/** The access-record callback of one request (only built when the access log is on). */
const logDone =
  (access: ScanAccessLog, method: string, path: string, started: number): Done =>
  (status, requestId) =>
    access.record(method, path, status, requestId, started);

/** Answers the request and returns true, or returns false (and does nothing) for a request Nest should get. */
export type HotPathHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface HotPathOptions {
  /** Scanlink-Version header value. */
  version: string;
  /** Set only when the access log is enabled (nothing is computed for it otherwise): a summary per interval at
   * `info`, a line per request at `debug` (scan-access-log.ts). */
  access?: ScanAccessLog;
  /** Tests only: take the visitor's country and region from the Scanlink-Test-Geo header. Honoured only when the
   * configuration says NODE_ENV=test and the caller of createScanApp asks for it (no entry point, flag or variable of
   * a deployed process does). */
  testGeoHeader?: boolean;
}


/**
 * The scan host's hot path: GET/HEAD `/{short_code}` answered by a plain Node handler placed in front of Fastify
 * and Nest (bootstrap.ts createScanApp), from the code cache, with no database write. A counted scan is enriched in
 * memory and appended to the scan buffer after the answer is written.
 */
@Injectable()
export class ScanHotPath implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ScanHotPath');
  readonly trust: TrustProxy;
  readonly enricher = new ScanEnricher();
  private readonly scanBaseUrl: string;
  private readonly scanOrigin: string;
  private access?: ScanAccessLog;
  readonly appSecret: string;
  private readonly env: AppConfig['env'];
  private testGeo = false;
  /** Scan numbers per code, for scan limits and `scans` rules (scan-numbers.ts). */
  readonly numbers = new ScanNumbers();
  private numberSync?: NodeJS.Timeout;
  /** Accept-Language header → the preferred language (smart-URL `language` rules). */
  readonly preferredLanguages = new StringMemo<string | null>(1_024, preferredLanguage, 512);
  /** Decided own-path answers (GS1 resolver), valid while their code entries are unchanged (own-path-memo.ts). */
  private readonly ownMemo: OwnPathMemo<{ prepared: PreparedAnswer; counted?: CachedCode }>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly cache: ScanCodeCache,
    private readonly buffer: ScanBuffer,
    private readonly sites: DomainHostCache,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.trust = parseTrustProxy(config.trustProxy);
    this.scanBaseUrl = config.scanBaseUrl;
    this.appSecret = config.appSecret;
    this.env = config.env;
    this.scanOrigin = new URL(config.scanBaseUrl).origin;
    this.ownMemo = new OwnPathMemo((key) => cache.peek(key));
    gs1Dictionary(); // the resolver's data: a missing or malformed file stops the process at boot
  }

  handler(opts: HotPathOptions): HotPathHandler {
    const { version, access } = opts;
    this.access = access;
    // Built once: the answer to a request whose Host is malformed or given twice.
    const badHost = prepareOwnPathAnswer({ status: 400, headers: {}, statusPage: true }, version);
    this.testGeo = opts.testGeoHeader === true && this.env === 'test';
    return (req, res) => {
      // Two Host headers (joined by the server with ', '), a malformed port or name: 400 before any route or cache
      // sees the value (every request of the scan host passes here, Nest's routes included).
      if (malformedHost(req.headers.host)) {
        writePreparedAnswer(req, res, badHost, pooledId('req'), arrivedOverHttps(req, this.trust));
        return true;
      }
      const method = req.method;
      // Paths a target type answers itself (GS1 Digital Link `/01/…`, any method: OPTIONS too), before short codes.
      const own = ownPathsOf(req.url ?? '');
      if (own) return this.ownPath(own, req, res, version, access ? logDone(access, method ?? '', access.otherPath(req.url ?? ''), performance.now()) : NO_LOG);
      if (method !== 'GET' && method !== 'HEAD') return false;
      const url = req.url ?? '';
      const match = SCAN_PATH.exec(url);
      if (!match && !OTHER_ONE_SEGMENT.test(url)) return false;
      const done = access ? logDone(access, method, match ? `/${match[1]}${match[2] ?? ''}` : access.otherPath(url), performance.now()) : NO_LOG;
      // Host → site: the default scan host (null), a verified custom domain (its id), or no site (the 404 page).
      const site = match ? this.sites.siteOf(req.headers.host) : undefined;
      if (!match || site === undefined) {
        this.answer(req, res, NO_CODE, '', version, done);
        return true;
      }
      const shortCode = match[1];
      const suffix = (match[2] ?? '') as ScanSuffix;
      const entry = this.cache.peek(siteKey(site, shortCode));
      if (entry) {
        this.answer(req, res, entry, suffix, version, done);
      } else {
        this.cache.load(site, shortCode).then(
          (loaded) => this.answer(req, res, loaded, suffix, version, done),
          (err: Error) => this.unavailable(req, res, err, version, done),
        );
      }
      return true;
    };
  }

  /** Scan numbers are shared with the other scan processes every 250 ms (scan-numbers.ts). */
  onModuleInit(): void {
    let running = false;
    this.numberSync = setInterval(() => {
      if (running || this.redis.status !== 'ready') return;
      running = true;
      void this.numbers.sync(this.redis).finally(() => (running = false));
    }, 250);
    this.numberSync.unref();
  }

  /** The last access summary, once the HTTP server has stopped answering. */
  onApplicationShutdown(): void {
    if (this.numberSync) clearInterval(this.numberSync);
    this.access?.stop?.();
  }

  private answer(
    req: IncomingMessage,
    res: ServerResponse,
    entry: ScanEntry,
    suffix: ScanSuffix,
    version: string,
    done: Done,
  ): void {
    const requestId = pooledId('req');
    const userAgent = req.headers['user-agent'];
    let status: number;
    let countable: boolean;
    let answer: ScanAnswer;
    let gate: RequestGate | undefined;
    try {
      gate = entry.code && (entry.gated || entry.decide) ? new RequestGate(this, req, userAgent) : undefined;
      answer = answerScan(entry, { suffix, userAgent, scanBaseUrl: this.scanBaseUrl, gate });
      countable = answer.countable;
      if (answer.location !== undefined) {
        status = 302;
        writeRedirect(res, answer.location, requestId, version, arrivedOverHttps(req, this.trust));
      } else {
        const page = answer.page;
        const body = typeof page.body === 'string' ? Buffer.from(page.body) : page.body;
        const headers: OutgoingHttpHeaders = { 'Content-Length': String(body.length), 'Request-Id': requestId, 'Scanlink-Version': version };
        copyForeignHeaders(page.headers, headers);
        const https = arrivedOverHttps(req, this.trust);
        if (https) headers['Strict-Transport-Security'] = STRICT_TRANSPORT_SECURITY;
        // A page shown within a scan limit comes with the scan pass: its download, file and form post work even once
        // this scan has used up the limit (scan-answer.ts isFollowUpExpired).
        const code = entry.code;
        if (gate && code?.maxScans != null && countable && answer.expired !== true && req.method === 'GET') {
          headers['Set-Cookie'] = scanPassSetCookie(this.appSecret, code.shortCode, code.id, gate.now, https);
        }
        status = page.status;
        res.writeHead(status, headers);
        res.end(req.method === 'HEAD' ? undefined : body);
      }
    } catch (err) {
      this.logger.error(`scan answer failed (request ${requestId}): ${(err as Error).stack ?? String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, this.errorHeaders(req, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Request-Id': requestId, 'Scanlink-Version': version }));
      }
      res.end(req.method === 'HEAD' ? undefined : 'Internal error');
      countScanAnswer(500);
      done(500, requestId);
      return;
    }
    if (countable && req.method === 'GET') {
      if (gate) this.countGated(req, entry, gate, answer);
      else this.count(req, entry.code!, userAgent);
    }
    countScanAnswer(status);
    done(status, requestId);
  }

  /** A request on a target type's own paths (scan-own-paths.ts), counted like a short-code scan when it names a code.
   * A decided answer is kept in the memo while the code entries it was decided from stay in the code cache. */
  private ownPath(paths: OwnPaths, req: IncomingMessage, res: ServerResponse, version: string, done: Done): true {
    const write = (prepared: PreparedAnswer, counted: CachedCode | undefined, expired = false): void => {
      const requestId = pooledId('req');
      done(writePreparedAnswer(req, res, prepared, requestId, arrivedOverHttps(req, this.trust)), requestId);
      if (counted && req.method === 'GET') this.count(req, counted, req.headers['user-agent'], expired);
    };
    // Host → site, as for short codes: an unknown host gets the 404 page; a custom domain is its own resolver root.
    const host = req.headers.host;
    const site = this.sites.siteOf(host);
    if (site === undefined) {
      write(prepareOwnPathAnswer({ status: 404, headers: {}, statusPage: true }, version), undefined);
      return true;
    }
    const { accept, 'accept-language': acceptLanguage } = req.headers;
    const key = { method: req.method ?? 'GET', url: req.url ?? '/', host, accept, acceptLanguage, site };
    const kept = this.ownMemo.get(key);
    if (kept) {
      write(kept.prepared, kept.counted);
      return true;
    }
    const origin = site === null ? this.scanOrigin : `https://${hostnameOf(host!)}`;
    const decided = (result: OwnPathResult): void => {
      const prepared = prepareOwnPathAnswer(result.answer, version);
      if (result.basis) this.ownMemo.set(key, result.basis, { prepared, counted: result.counted }, prepared.body?.length ?? 0);
      write(prepared, result.counted, result.expired === true);
    };
    try {
      const result = ownPathAnswer(paths, req, site, origin, this.cache);
      if ('then' in result) result.then(decided, (err: Error) => this.unavailable(req, res, err, version, done));
      else decided(result);
    } catch (err) {
      this.unavailable(req, res, err as Error, version, done);
    }
    return true;
  }

  /** Postgres (and so the code) unreachable on a cache miss: a retryable 503, nothing counted. */
  private unavailable(req: IncomingMessage, res: ServerResponse, err: Error, version: string, done: Done): void {
    const requestId = pooledId('req');
    this.logger.error(`code lookup failed (request ${requestId}): ${err.message}`);
    res.writeHead(
      503,
      this.errorHeaders(req, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'no-store',
        'Retry-After': '5',
        'Request-Id': requestId,
        'Scanlink-Version': version,
      }),
    );
    res.end('Temporarily unavailable, please try again.');
    countScanAnswer(503);
    done(503, requestId);
  }

  /** The headers of a 500 or 503 answer, with the security headers every answer of the scan host carries. */
  private errorHeaders(req: IncomingMessage, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
    Object.assign(headers, SECURITY_HEADERS);
    if (arrivedOverHttps(req, this.trust)) headers['Strict-Transport-Security'] = STRICT_TRANSPORT_SECURITY;
    return headers;
  }

  /** The test-only geolocation override (Scanlink-Test-Geo), or undefined: the place comes from the address. */
  testPlace(req: IncomingMessage): Place | undefined {
    if (!this.testGeo) return undefined;
    const header = req.headers[TEST_GEO_HEADER];
    const m = typeof header === 'string' ? TEST_GEO.exec(header) : null;
    return m ? { country: m[1], region: m[2] ? `${m[1]}-${m[2]}` : null, city: null } : undefined;
  }

  /** A counted scan of a code with rules or link controls: its rule, arm and expiry go with it, and for a code whose
   * scan number matters (a scan limit or a `scans` rule) a scan that is not expired takes the next one: bots are
   * left out of it here (for every other code the scan encoder drops them). The user agent's facts and the place are
   * the ones the gate worked out. */
  private countGated(req: IncomingMessage, entry: ScanEntry, gate: RequestGate, answer: ScanAnswer): void {
    const code = entry.code!;
    const expired = answer.expired === true;
    const decision = answer.decision;
    if (code.maxScans != null || entry.decide?.needs.scanNumber === true) {
      if (gate.userAgentFacts().bot) return;
      if (!expired) this.numbers.add(code);
    }
    const place = gate.addressPlace();
    const { referer, 'accept-language': acceptLanguage } = req.headers;
    // rule_id absent (undefined) = no rule decided this scan (no rules, or expired); null = the default destination.
    this.buffer.addScan(
      gate.now,
      code.id,
      code.organizationId,
      gate.ip,
      gate.userAgent,
      referer,
      acceptLanguage,
      place.country,
      place.city,
      decision ? decision.ruleId : undefined,
      decision ? decision.arm : null,
      expired,
    );
  }

  /** Queues the scan's raw facts (scan-buffer.ts): the address is used for the geo lookup here and for the visitor
   * hash by the scan encoder, and goes no further. Bots are dropped by the encoder. */
  private count(req: IncomingMessage, code: CachedCode, userAgent: string | undefined, expired = false): void {
    const ip = clientIp(req, this.trust);
    const place = this.enricher.place(ip);
    const { referer, 'accept-language': acceptLanguage } = req.headers;
    this.buffer.addScan(Date.now(), code.id, code.organizationId, ip, userAgent, referer, acceptLanguage, place.country, place.city, undefined, null, expired);
  }
}

/**
 * What link controls and rules ask about one request (ScanGate), built only for codes that have them. Each fact is
 * worked out once per request, on first use, and the counted scan reuses the user agent's facts, the address and its
 * place (a plain redirect works them out once too).
 */
class RequestGate implements ScanGate {
  readonly now = Date.now();
  readonly ip: string | undefined;
  private ua?: UserAgentFacts;
  private place?: Place;

  constructor(
    private readonly hot: ScanHotPath,
    private readonly req: IncomingMessage,
    readonly userAgent: string | undefined,
  ) {
    this.ip = clientIp(req, hot.trust);
  }

  userAgentFacts(): UserAgentFacts {
    return (this.ua ??= this.hot.enricher.userAgent(this.userAgent));
  }

  /** Where the address is (geo-cache.ts): what the scan record stores, whatever a test override says. */
  addressPlace(): Place {
    return (this.place ??= this.hot.enricher.place(this.ip));
  }

  scansSoFar(code: CachedCode): number {
    return this.hot.numbers.current(code, this.now);
  }

  unlocked(code: CachedCode): boolean {
    return isUnlocked(this.hot.appSecret, this.req.headers.cookie, code.shortCode, code.id, code.passwordTag ?? '', this.now);
  }

  holdsScanPass(code: CachedCode): boolean {
    return holdsScanPass(this.hot.appSecret, this.req.headers.cookie, code.shortCode, code.id, this.now);
  }

  /** The facts the code's rules read (`needs`); the others are left null, not worked out. */
  visitor(code: CachedCode, needs: FactNeeds): VisitorFacts {
    const ua = needs.userAgent ? this.userAgentFacts() : null;
    const place = needs.place ? (this.hot.testPlace(this.req) ?? this.addressPlace()) : null;
    const acceptLanguage = needs.language ? this.req.headers['accept-language'] : undefined;
    return {
      country: place ? place.country : null,
      region: place ? place.region : null,
      device: ua ? deviceOf(ua.device) : null,
      os: ua ? osOf(ua.os) : null,
      language: acceptLanguage ? this.hot.preferredLanguages.get(acceptLanguage) : null,
      at: this.now,
      scanNumber: needs.scanNumber ? this.hot.numbers.current(code, this.now) + 1 : null,
    };
  }
}
