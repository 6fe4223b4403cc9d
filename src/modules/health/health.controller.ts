import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { HealthDto } from './health.dto';
import { HealthService } from './health.service';

/** `GET /health` on the api and scan processes: 200 when PostgreSQL and Redis answer, else 503. */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness and dependency check (no authentication)' })
  @ApiOkResponse({ type: HealthDto, description: 'PostgreSQL and Redis answer' })
  @ApiServiceUnavailableResponse({ type: HealthDto, description: 'PostgreSQL or Redis does not answer' })
  async get(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthDto> {
    const result = await this.health.check();
    if (result.status !== 'ok') void reply.status(503);
    return result;
  }
}
