import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { MAX_PAGE_SIZE } from '../../common/http/pagination';
import { MAX_CODE_IDS } from './analytics-query';
import { ScanListDto, WorkspaceSelectionDocs } from './analytics.dto';
import { EXPORT_FORMATS, parseFormat, ScansService } from './scans.service';

const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };

@ApiTags('Analytics')
@Controller('scans')
export class ScansController {
  constructor(private readonly scans: ScansService) {}

  @Get()
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Raw scans: a cursor list, or every scan streamed as CSV or NDJSON',
    description:
      'The raw scans (kept SCAN_RETENTION_DAYS) of the selected codes between the days `from` and `to` (in `timezone`). Without ' +
      '`format`: a list, newest first, `limit` per page and `next_cursor`. With `format=csv` or `format=ndjson`: every scan of the ' +
      'range, oldest first, streamed (constant memory on the server). Fields: those of qr.scanned plus id, rule_id, arm, unique and ' +
      'expired; never an address. See docs/analytics.md.',
  })
  @ApiQuery({ name: 'from', required: false, schema: { type: 'string', format: 'date' }, description: 'First day (inclusive, in `timezone`)' })
  @ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date' }, description: 'Last day (inclusive)' })
  @ApiQuery({ name: 'timezone', required: false, schema: { type: 'string', default: 'UTC' }, description: 'IANA time zone of `from` and `to`' })
  @WorkspaceSelectionDocs()
  @ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...EXPORT_FORMATS] }, description: 'Stream every scan as CSV (header line first) or NDJSON' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 25 }, description: 'List page size (without format)' })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'Opaque, from next_cursor (without format)' })
  @ApiProduces('application/json', 'text/csv', 'application/x-ndjson')
  @ApiOkResponse({ type: ScanListDto, description: 'The list (JSON), or the stream (text/csv, application/x-ndjson)' })
  @ApiBadRequestResponse({ description: `invalid_request naming the parameter: dates, timezone, format, limit, a malformed cursor, more than ${MAX_CODE_IDS} ids, an unknown parameter`, schema: ERROR_ENVELOPE })
  @ApiForbiddenResponse({ description: 'insufficient_scope / plan_restricted (not on the Free plan)', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: a folder, tag or code id the workspace does not have', schema: ERROR_ENVELOPE })
  async list(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const q = query ?? {};
    const format = parseFormat(q.format);
    if (format === null) {
      await reply.send(await this.scans.list(auth, q));
      return;
    }
    const { stream } = await this.scans.export(auth, q, format);
    void reply
      .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="scans.${format}"`)
      .header('Cache-Control', 'no-store')
      .send(stream);
  }
}
