import { Controller, Get, Headers, Inject, OnModuleInit, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { sameSecret } from '../../common/crypto/same-secret';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { metricsRegistry } from '../../common/metrics/metrics';
import { DomainHostCache } from '../domains/domain-host-cache';

/** 127.0.0.0/8 and ::1, also written as IPv4-mapped IPv6. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Whether `authorization` is `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
  return !!match && sameSecret(match[1], token);
}

/**
 * `GET /metrics` on every process: Prometheus text format (docs/operations.md "Metrics"). With METRICS_TOKEN set, only
 * `Authorization: Bearer <METRICS_TOKEN>` gets it (401 otherwise); without it, only loopback callers do (403
 * otherwise; the client address as TRUST_PROXY reads it, so a request relayed by a trusted proxy is judged by its
 * client). On the scan process a custom domain's Host never gets it (404). Left out of the API reference: it is for
 * the operator's Prometheus, not API clients.
 */
@Controller('metrics')
export class MetricsController implements OnModuleInit {
  /** The scan process's map of custom domains (absent in the api and worker). */
  private hosts?: DomainHostCache;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    try {
      this.hosts = this.moduleRef.get(DomainHostCache, { strict: false });
    } catch {
      this.hosts = undefined;
    }
  }

  @Get()
  @Public()
  @ApiExcludeEndpoint()
  async get(
    @Req() req: FastifyRequest,
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (this.hosts && typeof this.hosts.siteOf(req.headers.host) === 'string') throw new ApiException('not_found', 'No such route: GET /metrics');
    const token = this.config.metricsToken;
    if (token && !bearerMatches(authorization, token)) {
      void reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new ApiException('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    if (!token && !isLoopback(req.ip)) {
      throw new ApiException('forbidden', 'GET /metrics answers loopback callers only unless METRICS_TOKEN is set');
    }
    void reply.header('Content-Type', metricsRegistry.contentType).header('Cache-Control', 'no-store');
    return metricsRegistry.metrics();
  }
}
