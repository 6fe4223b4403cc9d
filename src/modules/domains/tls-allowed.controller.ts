import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply } from 'fastify';
import { ApiException } from '../../common/errors/api.exception';
import { DomainsRepository } from './domains.repository';

/**
 * `GET /.well-known/scanlink/tls-allowed?domain=<hostname>` on the scan host: the reverse proxy's on-demand TLS `ask`
 * (Caddy asks before it requests a certificate for a host name it has not seen). 200 for a verified custom domain,
 * 404 for anything else, so nobody can make the proxy request certificates for arbitrary names.
 * Not on the scan hot path: a multi-segment path goes past ScanHotPath to Nest. It reads through its own fork of the
 * EntityManager: the scan process opens no request context for it (scan.module.ts).
 */
@ApiExcludeController()
@Controller('.well-known/scanlink')
export class TlsAllowedController {
  constructor(private readonly em: EntityManager) {}

  @Get('tls-allowed')
  async allowed(@Query('domain') domain: unknown, @Res() reply: FastifyReply): Promise<void> {
    // SNI names arrive in ASCII (punycode); a trailing dot and upper case are the only differences tolerated.
    const hostname = typeof domain === 'string' ? domain.toLowerCase().replace(/\.$/, '') : '';
    const ok = hostname.length > 0 && hostname.length <= 253 && (await new DomainsRepository(this.em.fork()).isVerified(hostname));
    // Caddy reads only the status; a refusal is the error envelope like every other non-page answer.
    if (!ok) throw new ApiException('not_found', 'Not a verified custom domain of this service');
    void reply.status(200).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send('allowed');
  }
}
