import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiException } from '../../common/errors/api.exception';
import { compareEntryIds, FEED_REFRESH_MS, MAX_FEEDS_PER_KEY, parseLastEventId, ScanLiveHub, type LiveEvent } from './scan-live.hub';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { MAX_PAGE_SIZE } from '../../common/http/pagination';
import { MAX_CODE_IDS } from './analytics-query';
import { DimensionFilterDocs, ScanListDto, WorkspaceSelectionDocs } from './analytics.dto';
import { clientGone } from './bounded-read';
import { EXPORT_FORMATS, parseFormat, ScansService } from './scans.service';

const ERROR_ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };

@ApiTags('Analytics')
@Controller('scans')
export class ScansController {
  constructor(
    private readonly scans: ScansService,
    private readonly hub: ScanLiveHub,
  ) {}

  @Get()
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Raw scans: a cursor list, or every scan streamed as CSV or NDJSON',
    description:
      'The raw scans (kept SCAN_RETENTION_DAYS) of the selected codes between the days `from` and `to` (in `timezone`), optionally only ' +
      'those with given dimension values (`country`, `device`, … as on GET /v1/analytics). Without ' +
      '`format`: a list, newest first, `limit` per page and `next_cursor`. With `format=csv` or `format=ndjson`: every scan of the ' +
      'range, oldest first, streamed (constant memory on the server). Fields: those of qr.scanned plus id, rule_id, arm, unique and ' +
      'expired; never an address. See docs/analytics.md.',
  })
  @ApiQuery({ name: 'from', required: false, schema: { type: 'string', format: 'date' }, description: 'First day (inclusive, in `timezone`)' })
  @ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date' }, description: 'Last day (inclusive)' })
  @ApiQuery({ name: 'timezone', required: false, schema: { type: 'string', default: 'UTC' }, description: 'IANA time zone of `from` and `to`' })
  @WorkspaceSelectionDocs()
  @DimensionFilterDocs('Combine with AND, as on GET /v1/analytics.')
  @ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...EXPORT_FORMATS] }, description: 'Stream every scan as CSV (header line first) or NDJSON' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 25 }, description: 'List page size (without format)' })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'Opaque, from next_cursor (without format)' })
  @ApiProduces('application/json', 'text/csv', 'application/x-ndjson')
  @ApiOkResponse({ type: ScanListDto, description: 'The list (JSON), or the stream (text/csv, application/x-ndjson)' })
  @ApiBadRequestResponse({ description: `invalid_request naming the parameter: dates, timezone, format, limit, a malformed cursor, more than ${MAX_CODE_IDS} ids, an unknown parameter`, schema: ERROR_ENVELOPE })
  @ApiForbiddenResponse({ description: 'insufficient_scope / plan_restricted (not on the Free plan)', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: a folder, tag or code id the workspace does not have', schema: ERROR_ENVELOPE })
  @ApiUnprocessableEntityResponse({ description: 'static_code_not_supported: a listed code is static (it records no scans)', schema: ERROR_ENVELOPE })
  async list(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const q = query ?? {};
    const format = parseFormat(q.format);
    if (format === null) {
      await reply.send(await this.scans.list(auth, q, clientGone(reply)));
      return;
    }
    const { stream } = await this.scans.export(auth, q, format);
    void reply
      .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="scans.${format}"`)
      .header('Cache-Control', 'no-store')
      .send(stream);
  }

  @Get('live')
  @RequiresScope('analytics:read')
  @ApiOperation({
    summary: 'Live scans as Server-Sent Events',
    description:
      'A text/event-stream of the workspace\'s scans (or one code\'s, with `qr_code_id`) as they are stored, usually within a ' +
      'second or two of the scan: `event: scan`, `data:` the exported scan row (as GET /v1/scans), `id:` a position to resume ' +
      `from with the \`Last-Event-ID\` header. A comment line every ${FEED_REFRESH_MS / 1000} s keeps the connection open. At most ` +
      `${MAX_FEEDS_PER_KEY} feeds per key at once (429 rate_limited beyond). See docs/analytics.md.`,
  })
  @ApiQuery({ name: 'qr_code_id', required: false, schema: { type: 'string' }, description: 'Only the scans of this code' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  @ApiBadRequestResponse({ description: 'invalid_request: an unknown parameter or a malformed qr_code_id', schema: ERROR_ENVELOPE })
  @ApiForbiddenResponse({ description: 'insufficient_scope / plan_restricted (not on the Free plan)', schema: ERROR_ENVELOPE })
  @ApiNotFoundResponse({ description: 'not_found: a code the workspace does not have', schema: ERROR_ENVELOPE })
  @ApiUnprocessableEntityResponse({ description: 'static_code_not_supported: the code is static (it records no scans)', schema: ERROR_ENVELOPE })
  async live(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const q = query ?? {};
    const unknown = Object.keys(q).find((k) => k !== 'qr_code_id');
    if (unknown) throw ApiException.invalid(unknown, `Unknown query parameter '${unknown}'; the live feed takes only qr_code_id`);
    if (q.qr_code_id !== undefined && typeof q.qr_code_id !== 'string') throw ApiException.invalid('qr_code_id', 'qr_code_id must be given once');
    const codeId = await this.scans.liveCode(auth, q.qr_code_id as string | undefined);
    const header = req.headers['last-event-id'];
    const resume = parseLastEventId(typeof header === 'string' ? header : undefined);
    const streamHeaders = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };
    // HEAD (a monitor's probe): the feed's headers at once, no stream, and no feed slot taken.
    if (req.method === 'HEAD') {
      void reply.code(200).headers(streamHeaders).send();
      return;
    }
    const feed = await this.hub.open(auth.keyId);

    reply.hijack();
    const raw = reply.raw;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(reply.getHeaders())) if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
    raw.writeHead(200, { ...headers, ...streamHeaders, Connection: 'keep-alive' });
    raw.write('retry: 2000\n: scanlink live scans\n\n');
    let lastSent = resume;
    const send = (events: LiveEvent[]): void => {
      let out = '';
      for (const e of events) {
        const s = e.scan;
        if (s.organization_id !== auth.organizationId || s.environment !== auth.environment || (codeId && s.qr_code_id !== codeId)) continue;
        const { organization_id: _o, environment: _e, ...row } = s;
        out += `id: ${e.id}\nevent: scan\ndata: ${JSON.stringify(row)}\n\n`;
      }
      if (out) raw.write(out);
      const last = events[events.length - 1];
      if (last) lastSent = parseLastEventId(last.id);
    };
    // Live events that arrive while the past ones are read wait, then go out after them (none twice).
    let queued: LiveEvent[] | null = resume ? [] : null;
    const unsubscribe = this.hub.subscribe(
      (events) => (queued ? queued.push(...events) : send(events)),
      () => raw.end(),
    );
    const heartbeat = setInterval(() => {
      raw.write(': heartbeat\n\n');
      this.hub.refresh(auth.keyId, feed);
    }, FEED_REFRESH_MS);
    heartbeat.unref();
    const done = (): void => {
      clearInterval(heartbeat);
      unsubscribe();
      this.hub.close(auth.keyId, feed);
    };
    raw.on('close', done);
    if (resume) {
      try {
        send(await this.hub.since(resume));
      } catch {
        /* the live part still works */
      }
      const pending = queued ?? [];
      queued = null;
      const after = lastSent;
      send(
        after
          ? pending.filter((e) => {
              const p = parseLastEventId(e.id)!;
              const c = compareEntryIds(p.entry, after.entry);
              return c > 0 || (c === 0 && p.index > after.index);
            })
          : pending,
      );
    }
  }
}
