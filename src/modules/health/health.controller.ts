import { applyDecorators, Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { HealthDto, LivenessDto } from './health.dto';
import { HealthService } from './health.service';

/** The readiness answer's documentation: 200 or 503 with the checks. */
const Readiness = (summary: string) =>
  applyDecorators(
    Public(),
    HttpCode(200),
    ApiOperation({ summary }),
    ApiOkResponse({ type: HealthDto, description: 'Ready to serve' }),
    ApiServiceUnavailableResponse({ type: HealthDto, description: 'PostgreSQL or Redis does not answer, or migrations are pending' }),
  );

/**
 * Health on the api, scan and worker processes (docs/operations.md): `/health/live` says the process runs (restart
 * it when this fails); `/health/ready` says it can serve (route traffic to it): PostgreSQL and Redis answer and every
 * migration is applied, else 503. `/health` is the ready check under its original name.
 */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process runs (no dependency is checked; no authentication)' })
  @ApiOkResponse({ type: LivenessDto })
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Readiness('Readiness: PostgreSQL and Redis answer and migrations are applied (no authentication)')
  ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    return this.answer(reply);
  }

  @Get()
  @Readiness('Readiness under its original name (same answer as /health/ready; no authentication)')
  get(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    return this.answer(reply);
  }

  private async answer(reply: FastifyReply): Promise<HealthDto> {
    const result = await this.health.check();
    if (result.status !== 'ok') void reply.status(503);
    return result;
  }
}
