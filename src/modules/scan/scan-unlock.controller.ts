import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { clientAddressKey } from '../../common/http/client-address';
import { REDIS } from '../../common/redis/redis.provider';
import { DomainHostCache } from '../domains/domain-host-cache';
import { hostnameOf, type ScanSite, siteKey } from '../domains/scan-site';
import { passwordMatches } from '../targets/link-controls';
import { passwordHashOf } from '../qr-codes/qr-codes.repository';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import { renderPasswordPage, renderTooManyTriesPage } from '../hosted-pages/link-control-pages';
import { ScanCodeCache } from './scan-code-cache';
import { ScanHotPath } from './scan-hot-path';
import { isExpired } from './scan-answer';
import { renderStatusPage } from '../hosted-pages/status-pages';
import { unlockCookieValue, unlockSetCookie } from './unlock-cookie';

const SHORT_CODE = /^[0-9A-Za-z]{7}$/;
/** Wrong passwords allowed per code and client address in one minute (the next try gets the 429 page). */
export const UNLOCK_TRIES_PER_MINUTE = 10;

/**
 * `POST /{short_code}/unlock` on the scan host: the password page's form (docs/link-controls.md). A right password →
 * 302 back to the short URL with the code's unlock cookie (12 h); a wrong one → the page again (200, with the error); the 11th wrong
 * try within a minute from one address for one code → the 429 page. A code without a password, or expired, → 302 back to
 * the short URL whatever the password (no password is checked). Answers never tell more than the short URL does.
 */
@ApiExcludeController()
@Controller()
export class ScanUnlockController {
  /** SCAN_BASE_URL's host (and port), as a Host header names it. */
  private readonly defaultHost: string;

  constructor(
    private readonly cache: ScanCodeCache,
    private readonly hot: ScanHotPath,
    private readonly sites: DomainHostCache,
    private readonly orm: MikroORM,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.defaultHost = new URL(config.scanBaseUrl).host;
  }

  /**
   * Where the browser goes back to: the code's short_url (SCAN_BASE_URL, or https on its custom domain) when the form
   * was posted on that host, else the host the browser used (a phone on the machine's address while SCAN_BASE_URL
   * says localhost): the unlock cookie was set for that host. The Host header reaching here is well formed (the scan
   * host answers 400 to the others first).
   */
  private originOf(site: ScanSite, req: FastifyRequest): string {
    if (site !== null) return `https://${hostnameOf(req.headers.host!)}`;
    const host = req.headers.host;
    return !host || host.toLowerCase() === this.defaultHost ? this.config.scanBaseUrl : `${req.protocol}://${host}`;
  }

  @Post(':shortCode/unlock')
  async unlock(@Param('shortCode') shortCode: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const site = this.sites.siteOf(req.headers.host);
    if (!SHORT_CODE.test(shortCode) || site === undefined) return send(reply, renderStatusPage(404));
    const { code } = this.cache.peek(siteKey(site, shortCode)) ?? (await this.cache.load(site, shortCode));
    if (!code || code.status === 'trashed') return send(reply, renderStatusPage(404));
    if (code.status !== 'live' || !code.isActive) return send(reply, renderStatusPage(410));
    // No password to check, or the code has expired (a scan gets the expired answer before any password page): back
    // to the short URL, which answers what a scan gets.
    const back = `${this.originOf(site, req)}/${shortCode}`;
    const now = Date.now();
    if (!code.passwordTag || isExpired(code, { now, scansSoFar: (c) => this.hot.numbers.current(c, now) })) return void reply.status(302).headers({ location: back, 'cache-control': 'no-store' }).send();
    // request.ip honours the adapter's trust-proxy setting; only an HMAC of it reaches Redis, for one minute.
    const key = `scanlink:unlock-rate:${code.id}:${clientAddressKey(this.config.appSecret, req.ip || 'unknown')}`;
    const tries = Number((await this.redis.get(key)) ?? 0);
    if (tries >= UNLOCK_TRIES_PER_MINUTE) return send(reply, renderTooManyTriesPage(await this.redis.ttl(key)));
    const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    // Only a single text value is a password: a repeated form field or a JSON array, number or object is a wrong try.
    const password = typeof body.password === 'string' ? body.password : '';
    const hash = password ? await passwordHashOf(this.orm.em.fork(), code.id) : null;
    if (hash && password.length <= 1024 && (await passwordMatches(hash, password))) {
      const secure = req.protocol === 'https' || this.config.scanBaseUrl.startsWith('https:');
      const cookie = unlockSetCookie(shortCode, unlockCookieValue(this.config.appSecret, code.id, code.passwordTag, Date.now()), secure);
      return void reply.status(302).headers({ location: back, 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).send();
    }
    const [[, count], , [, ttl]] = (await this.redis.multi().incr(key).expire(key, 60, 'NX').ttl(key).exec()) as [[null, number], unknown, [null, number]];
    if (count > UNLOCK_TRIES_PER_MINUTE) return send(reply, renderTooManyTriesPage(ttl));
    send(reply, renderPasswordPage(shortCode, { error: true }));
  }
}

function send(reply: FastifyReply, r: HostedResponse): void {
  void reply.status(r.status).headers(r.headers).send(r.body);
}
