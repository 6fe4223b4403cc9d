import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { sameSecret } from '../../common/crypto/same-secret';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { metricsRegistry } from '../../common/metrics/metrics';

/** Whether `authorization` is `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '');
  return !!match && sameSecret(match[1], token);
}

/**
 * `GET /metrics` on every process: Prometheus text format (docs/operations.md "Metrics"). With METRICS_TOKEN set, only
 * `Authorization: Bearer <METRICS_TOKEN>` gets it (401 otherwise). Left out of the API reference: it is for the
 * operator's Prometheus, not API clients.
 */
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Public()
  @ApiExcludeEndpoint()
  async get(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const token = this.config.metricsToken;
    if (token && !bearerMatches(authorization, token)) {
      void reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new ApiException('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    void reply.header('Content-Type', metricsRegistry.contentType).header('Cache-Control', 'no-store');
    return metricsRegistry.metrics();
  }
}
