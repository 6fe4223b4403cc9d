import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
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
import { MAX_CODE_IDS, MAX_SERIES_POINTS } from './analytics-query';
import { AnalyticsDto, AnalyticsQueryDocs, type WorkspaceAnalytics, WorkspaceAnalyticsDto, WorkspaceSelectionDocs } from './analytics.dto';
import { AnalyticsService } from './analytics.service';
import { clientGone } from './bounded-read';

/** The shared error envelope (registered once in openapi.ts). */
const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };

const BAD_QUERY =
  `invalid_request (\`field\` names the parameter): \`from\`/\`to\` not a YYYY-MM-DD date, \`from\` after \`to\`, a range over ${MAX_RANGE_DAYS} days, ` +
  `an unknown \`timezone\`, an \`interval\` giving more than ${MAX_SERIES_POINTS} points, an unknown query parameter or dimension filter, a repeated parameter`;

@ApiTags('Analytics')
@Controller()
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('qr-codes/:id/analytics')
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Scan analytics of a dynamic QR code',
    description:
      'Totals (scans, unique visitors, expired-link scans), a zero-filled series at `interval` in `timezone` (and `scans_by_day` for ' +
      'interval=day), scans per hour of the week, the top 10 values per dimension and per smart-URL rule, over the days `from`..`to` ' +
      '(inclusive, in `timezone`; all time when both are omitted). Dimension query parameters (`country=FR&device=mobile`) filter the ' +
      'whole answer. Counted: scans by people (link-preview bots, crawlers and HEAD requests are not). Values that could not be ' +
      'determined are reported as `Unknown`. New scans appear within about a second. Not on the Free plan. See docs/analytics.md.',
  })
  @ApiParam({ name: 'id', description: 'A dynamic code id (`qr_…`)', example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' })
  @AnalyticsQueryDocs()
  @ApiOkResponse({ type: AnalyticsDto })
  @ApiBadRequestResponse({ description: BAD_QUERY, schema: ERROR_ENVELOPE })
  @ApiForbiddenResponse({ description: 'insufficient_scope: the key lacks `analytics:read`; plan_restricted: the Free plan has no analytics', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: unknown id, or a code of another workspace, or a trashed or paused code', schema: ERROR_ENVELOPE })
  @ApiUnprocessableEntityResponse({ description: 'static_code_not_supported: static codes (`sqr_…`) are not tracked', schema: ERROR_ENVELOPE })
  retrieve(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AnalyticsDto> {
    return this.analytics.forCode(auth, id, query ?? {}, new Date(), clientGone(reply));
  }

  @Get('analytics')
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Scan analytics over many codes',
    description:
      'The same answer as a code\'s analytics, summed over the live dynamic codes of the workspace selected by `folder_id`, `tag`, `type` ' +
      `and \`qr_code_id\` (all of them when none is given; at most ${MAX_CODE_IDS} ids), plus \`qr_codes\`: the codes with the most scans. ` +
      'See docs/analytics.md.',
  })
  @AnalyticsQueryDocs()
  @WorkspaceSelectionDocs()
  @ApiOkResponse({ type: WorkspaceAnalyticsDto })
  @ApiBadRequestResponse({ description: `${BAD_QUERY}; more than ${MAX_CODE_IDS} ids or a malformed id`, schema: ERROR_ENVELOPE })
  @ApiForbiddenResponse({ description: 'insufficient_scope: the key lacks `analytics:read`; plan_restricted: the Free plan has no analytics', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: a folder, tag or code id the workspace does not have', schema: ERROR_ENVELOPE })
  @ApiUnprocessableEntityResponse({ description: 'static_code_not_supported: a listed id is a static code', schema: ERROR_ENVELOPE })
  workspace(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>, @Res({ passthrough: true }) reply: FastifyReply): Promise<WorkspaceAnalytics> {
    return this.analytics.forWorkspace(auth, query ?? {}, new Date(), clientGone(reply));
  }
}
