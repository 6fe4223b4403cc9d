import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { renderExpiredPage, renderPasswordPage } from '../hosted-pages/link-control-pages';
import { holdsScanPass, isFollowUpExpired, isUnlocked } from './unlock-cookie';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainHostCache } from '../domains/domain-host-cache';
import { siteKey } from '../domains/scan-site';
import { FileDeliveryService } from '../files/file-delivery.service';
import { servedFile } from '../targets/registry';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import { ScanCodeCache } from './scan-code-cache';
import type { CachedCode } from './scan-contract';
import { ScanHotPath } from './scan-hot-path';
import { renderStatusPage } from '../hosted-pages/status-pages';

const SHORT_CODE = /^[0-9A-Za-z]{7}$/;

/**
 * `GET/HEAD /{short_code}/file` on the scan host: the bytes of a file, audio or video code (the target handler names
 * the stored file; FileDeliveryService streams it with ranges and inert headers). Not a scan: only the page counts.
 * The code comes from the same cache as the hot path, so an inactive or trashed code stops serving its file at once,
 * and, like every scan URL, it answers on its own host only (the default scan host or its custom domain).
 */
@ApiExcludeController()
@Controller()
export class ScanFileController {
  constructor(
    private readonly cache: ScanCodeCache,
    private readonly delivery: FileDeliveryService,
    private readonly sites: DomainHostCache,
    private readonly hot: ScanHotPath,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':shortCode/file')
  async file(@Param('shortCode') shortCode: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const site = this.sites.siteOf(req.headers.host);
    if (!SHORT_CODE.test(shortCode) || site === undefined) return send(reply, renderStatusPage(404));
    const { code } = this.cache.peek(siteKey(site, shortCode)) ?? (await this.cache.load(site, shortCode));
    if (!code || code.status === 'trashed') return send(reply, renderStatusPage(404));
    if (code.status !== 'live' || !code.isActive) return send(reply, renderStatusPage(410));
    // Link controls hold for the file too: an expired code serves none, a password-protected one only once unlocked.
    // Expired by date, or by the scan number the scan processes count (the cached copy's stored count lags them by the
    // worker's ingestion) unless the browser holds the scan pass of the page that links here.
    const now = Date.now();
    const cookie = req.headers.cookie;
    const gate = {
      now,
      scansSoFar: (c: CachedCode) => this.hot.numbers.current(c, now),
      holdsScanPass: (c: CachedCode) => holdsScanPass(this.config.appSecret, cookie, shortCode, c.id, now),
    };
    if (isFollowUpExpired(code, gate)) return send(reply, renderExpiredPage());
    if (code.passwordTag && !isUnlocked(this.config.appSecret, cookie, shortCode, code.id, code.passwordTag, now)) {
      return send(reply, renderPasswordPage(shortCode));
    }
    const file = servedFile(code.type, code, 'file');
    if (!file || !(await this.delivery.send(req, reply, file))) send(reply, renderStatusPage(404));
  }
}

function send(reply: FastifyReply, r: HostedResponse): void {
  void reply.status(r.status).headers(r.headers).send(r.body);
}
