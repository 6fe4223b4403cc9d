import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { MAX_RANGE_DAYS } from './analytics-range';
import { AnalyticsDto, AnalyticsQueryDto } from './analytics.dto';
import { AnalyticsService } from './analytics.service';

/** The shared error envelope (registered once in openapi.ts). */
const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };

@ApiTags('Analytics')
@Controller('qr-codes')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get(':id/analytics')
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Scan analytics of a dynamic QR code',
    description:
      'Totals, a zero-filled daily series and the top 10 values per dimension, over UTC days `from`..`to` (inclusive; all time ' +
      `when both are omitted). Counted: scans by people (link-preview bots, crawlers and HEAD requests are not). Values that ` +
      'could not be determined are reported as `Unknown`. Read from daily rollups, so the cost does not depend on the number ' +
      'of scans; new scans appear within about a second. Not on the Free plan. See docs/analytics.md.',
  })
  @ApiParam({ name: 'id', description: 'A dynamic code id (`qr_…`)', example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' })
  @ApiOkResponse({ type: AnalyticsDto })
  @ApiBadRequestResponse({
    description:
      `invalid_request: \`from\` or \`to\` is not a YYYY-MM-DD date, \`from\` is after \`to\`, the range spans more than ${MAX_RANGE_DAYS} days, ` +
      'or an unknown query parameter was sent (`field` names it)',
    schema: ERROR_ENVELOPE,
  })
  @ApiForbiddenResponse({ description: 'insufficient_scope: the key lacks `analytics:read`; plan_restricted: the Free plan has no analytics', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: unknown id, or a code of another workspace, or a trashed or paused code', schema: ERROR_ENVELOPE })
  @ApiUnprocessableEntityResponse({ description: 'static_code_not_supported: static codes (`sqr_…`) are not tracked', schema: ERROR_ENVELOPE })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: AnalyticsQueryDto): Promise<AnalyticsDto> {
    return this.analytics.forCode(auth, id, query);
  }
}
