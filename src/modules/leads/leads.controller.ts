import { Controller, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { enrich } from '../scan/enrich';
import type { HostedResponse } from '../hosted-pages/hosted-response';
import { renderStatusPage } from '../hosted-pages/status-pages';
import { formDefinition, renderFormPage, renderThankYouPage, renderTooManyRequestsPage } from '../hosted-pages/form-page';
import { renderExpiredPage, renderPasswordPage } from '../hosted-pages/link-control-pages';
import { ApiException } from '../../common/errors/api.exception';
import { assertCleanStrings, isPrototypeName } from '../../common/errors/input-rules';
import { DomainHostCache } from '../domains/domain-host-cache';
import { checkLead } from './lead-validation';
import { LeadsService } from './leads.service';

const SHORT_CODE = /^[0-9A-Za-z]{7}$/;

/** `POST /{short_code}` on the scan host: a visitor submits a hosted lead-capture form. Answers are HTML pages. */
@ApiExcludeController()
@Controller()
export class LeadsController {
  constructor(
    private readonly leads: LeadsService,
    private readonly sites: DomainHostCache,
  ) {}

  @Post(':shortCode')
  async submit(@Param('shortCode') shortCode: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await this.answer(shortCode, req));
  }

  private async answer(shortCode: string, req: FastifyRequest): Promise<HostedResponse> {
    // The form lives on the host its code does: an unknown host has no forms.
    const site = this.sites.siteOf(req.headers.host);
    if (!SHORT_CODE.test(shortCode) || site === undefined) return renderStatusPage(404);
    // request.ip honours the adapter's trust-proxy setting; it is used here, in memory, and never kept.
    const ip = req.ip || 'unknown';
    const limit = await this.leads.hit(ip);
    if (!limit.allowed) return renderTooManyRequestsPage(limit.retryAfterSeconds);
    const lookup = await this.leads.findForm(site, shortCode, req.headers.cookie);
    if ('status' in lookup) {
      if (lookup.status === 'expired') return renderExpiredPage();
      if (lookup.status === 'locked') return renderPasswordPage(shortCode);
      return renderStatusPage(lookup.status);
    }
    const code = lookup.found;
    const form = formDefinition(code.target);
    if (!form) return renderStatusPage(404);
    const raw = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    // A browser's form post (form-encoded) gets HTML back: keys named like Object.prototype members are ignored like
    // any other unknown key, and a field holding control characters is a 400 with the form again, the message under
    // that field (checkLead). A scripted JSON post gets the API's answer to any invalid field: a 400 envelope naming
    // it (the first, with all of them in `fields`).
    const json = String(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
    if (json) assertCleanStrings(raw);
    const body = json ? raw : Object.fromEntries(Object.entries(raw).filter(([k]) => !isPrototypeName(k)));
    const result = checkLead(form, body);
    if (result.outcome === 'bot') return renderThankYouPage(code.target);
    if (result.outcome === 'invalid') {
      if (!json) return renderFormPage(code, result.state, 400) ?? renderStatusPage(404);
      const fields = Object.keys(result.state.errors);
      throw ApiException.invalid(fields[0], `${fields[0]}: ${result.state.errors[fields[0]]}`, fields);
    }
    const { country, city, device, os, browser } = enrich({ ip, userAgent: req.headers['user-agent'] });
    const stored = await this.leads.capture(code, result.fields, { country, city, device, os, browser });
    return stored ? renderThankYouPage(code.target) : renderStatusPage(410);
  }
}

function send(reply: FastifyReply, r: HostedResponse): void {
  void reply.status(r.status).headers(r.headers).send(r.body);
}
