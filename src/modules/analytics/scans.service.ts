import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec, queryFingerprint } from '../../common/http/cursor';
import { listOf, type ListEnvelope } from '../../common/http/list';
import { parseLimit } from '../../common/http/pagination';
import { dayString, resolveRange } from './analytics-range';
import { zoneInstants } from './analytics-engine';
import { dayOfRequest, parseAnalyticsQuery, parseWorkspaceFilters } from './analytics-query';
import { SELECTION_PARAMS, selectCodes } from './analytics.service';
import { boundedRead } from './bounded-read';
import { copyExport, copySql } from './scan-copy';
import { CSV_COLUMNS, scanPage, type ScanRow, type ScanSelection } from './scan-export';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ScanExport {
  format: ExportFormat;
  stream: Readable;
}

/** GET /v1/scans: raw scans as a cursor list, or streamed as CSV or NDJSON. */
@Injectable()
export class ScansService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The selection and range of a request (400s first, then 404s), as ScanSelection. */
  private async selection(auth: AuthContext, query: Record<string, unknown>, em: EntityManager = this.em): Promise<ScanSelection> {
    const req = parseAnalyticsQuery(query, new Date(), [...SELECTION_PARAMS, 'format', 'limit', 'cursor']);
    if (query.interval !== undefined) throw ApiException.invalid('interval', 'interval is not a parameter of the raw export');
    const sel = parseWorkspaceFilters(query);
    const codes = await selectCodes(em, auth, sel);
    // Only `to`: refused as workspace analytics refuses it (the oldest selected code's creation day to `to` over 366
    // days), so an export and an analytics answer accept the same ranges.
    if (req.range.from === null && req.range.to !== null && codes.length > 0) {
      const oldest = new Date(Math.min(...codes.map((c) => c.createdAt.getTime())));
      resolveRange(req.range, dayOfRequest(oldest, req), req.today);
    }
    const local = (n: number | null) => (n === null ? null : `${dayString(n)}T00:00:00`);
    const [lo, hi] = await zoneInstants(em, req.timezone, [local(req.range.from), local(req.range.to === null ? null : req.range.to + 1)]);
    return { organizationId: auth.organizationId, ids: codes.map((c) => c.id), lo, hi, filters: req.filters };
  }

  /** The code a live feed is narrowed to (404 when the workspace does not have it), or null for the workspace. */
  async liveCode(auth: AuthContext, id: string | undefined): Promise<string | null> {
    if (id === undefined) return null;
    const sel = parseWorkspaceFilters({ qr_code_id: id });
    const [code] = await selectCodes(this.em, auth, sel);
    return code ? code.id : null;
  }

  /** One page, read in a transaction bounded by ANALYTICS_STATEMENT_TIMEOUT_MS and cancelled when the client leaves. */
  async list(auth: AuthContext, query: Record<string, unknown>, signal?: AbortSignal): Promise<ListEnvelope<ScanRow>> {
    const limit = parseLimit(query.limit);
    const fingerprint = queryFingerprint(auth, { ...query, resource: 'scans' });
    const after = query.cursor === undefined ? null : this.cursor(query.cursor, fingerprint);
    const rows = await boundedRead(this.em, this.config.analyticsStatementTimeoutMs, signal, async (tx) =>
      scanPage(tx, await this.selection(auth, query, tx), 'desc', after, limit + 1),
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    return listOf(
      page.map(({ at: _at, ...row }) => row),
      hasMore,
      hasMore && last ? this.cursors.encode({ v: last.at, id: last.id }, fingerprint) : null,
    );
  }

  private cursor(raw: unknown, fingerprint: string): { at: string; id: string } {
    const pos = this.cursors.decode(typeof raw === 'string' ? raw : '', fingerprint);
    if (typeof pos.v !== 'string' || Number.isNaN(Date.parse(pos.v))) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
    return { at: pos.v, id: pos.id };
  }

  /** Every scan of the selection and range, oldest first, streamed by PostgreSQL (scan-copy.ts): constant memory. */
  async export(auth: AuthContext, query: Record<string, unknown>, format: ExportFormat): Promise<ScanExport> {
    for (const p of ['limit', 'cursor']) {
      if (query[p] !== undefined) throw ApiException.invalid(p, `${p} is not used with format=${format}: the export streams every scan of the range`);
    }
    const sel = await this.selection(auth, query);
    const stream = await copyExport(this.em, copySql(sel, format), format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : '');
    return { format, stream };
  }
}

export function parseFormat(raw: unknown): ExportFormat | null {
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(raw)) {
    throw ApiException.invalid('format', `format must be one of ${EXPORT_FORMATS.join(', ')} (or absent for a JSON list)`);
  }
  return raw as ExportFormat;
}
