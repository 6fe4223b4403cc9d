import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { folderExists } from '../folders/folders.repository';
import { findAnalyticsCodes, inactiveDynamicCodeIds, otherDynamicCodeIds, type AnalyticsCodeFacts } from '../qr-codes/qr-codes.repository';
import { analyticsOver, type CodeSet } from './analytics-engine';
import { parseAnalyticsQuery, parseWorkspaceFilters, type WorkspaceFilters } from './analytics-query';
import type { AnalyticsDto, WorkspaceAnalytics } from './analytics.dto';
import { boundedRead } from './bounded-read';

export { TOP_VALUES, UNKNOWN } from './analytics-engine';

/** Query parameters of the workspace selection (GET /analytics, GET /scans). */
export const SELECTION_PARAMS = ['folder_id', 'tag', 'type', 'qr_code_id', 'qr_code_id[]'] as const;

const STATIC_REFUSED = () =>
  new ApiException('static_code_not_supported', 'Static codes encode their content directly and are not tracked: they have no analytics');

const codeSet = (codes: AnalyticsCodeFacts[], now: Date): CodeSet => ({
  ids: codes.map((c) => c.id),
  createdAt: codes.length ? new Date(Math.min(...codes.map((c) => c.createdAt.getTime()))) : now,
  ruleNames: new Map(codes.flatMap((c) => c.ruleNames)),
});

/**
 * Workspace codes selected by folder, tag, type and ids (dynamic, live, the caller's environment). A folder, tag or
 * id the workspace does not have is a 404 (foreign ones look the same: no existence leak); a listed static code 422.
 */
export async function selectCodes(em: EntityManager, auth: AuthContext, sel: WorkspaceFilters): Promise<AnalyticsCodeFacts[]> {
  if (sel.folderId !== undefined && !(await folderExists(em, auth, sel.folderId))) throw ApiException.notFound('folder', sel.folderId);
  if (sel.tag !== undefined && (await findAnalyticsCodes(em, auth, { tag: sel.tag })).length === 0) throw ApiException.notFound('tag', sel.tag);
  const codes = await findAnalyticsCodes(em, auth, {
    ids: sel.codeIds.length ? sel.codeIds : undefined,
    folderId: sel.folderId,
    tag: sel.tag,
    type: sel.type,
  });
  if (sel.codeIds.length) {
    const found = new Map(codes.map((c) => [c.id, c]));
    // Every listed id must be a code of the workspace (whatever the other filters then keep).
    const all = await findAnalyticsCodes(em, auth, { ids: sel.codeIds });
    const known = new Set(all.map((c) => c.id));
    const missing = sel.codeIds.find((id) => !known.has(id));
    if (missing) throw ApiException.notFound('QR code', missing);
    if (all.some((c) => c.kind !== 'dynamic')) throw STATIC_REFUSED();
    return [...found.values()];
  }
  return codes.filter((c) => c.kind === 'dynamic');
}

/**
 * GET /v1/qr-codes/{id}/analytics and GET /v1/analytics (analytics-engine.ts does the reading). Each answer is read in
 * one transaction bounded by ANALYTICS_STATEMENT_TIMEOUT_MS and cancelled when its client leaves (`signal`).
 */
@Injectable()
export class AnalyticsService {
  constructor(
    private readonly em: EntityManager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async forCode(auth: AuthContext, id: string, query: Record<string, unknown>, now = new Date(), signal?: AbortSignal): Promise<AnalyticsDto> {
    const req = parseAnalyticsQuery(query, now);
    const body = await boundedRead(this.em, this.config.analyticsStatementTimeoutMs, signal, async (tx) => {
      const [code] = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await findAnalyticsCodes(tx, auth, { ids: [id] }) : [];
      if (!code) throw ApiException.notFound('QR code', id);
      if (code.kind !== 'dynamic') throw STATIC_REFUSED();
      return analyticsOver(tx, codeSet([code], now), req, false);
    });
    return { object: 'analytics', qr_code_id: id, ...body } as AnalyticsDto;
  }

  async forWorkspace(auth: AuthContext, query: Record<string, unknown>, now = new Date(), signal?: AbortSignal): Promise<WorkspaceAnalytics> {
    const req = parseAnalyticsQuery(query, now, SELECTION_PARAMS);
    const sel = parseWorkspaceFilters(query);
    const { codes, body } = await boundedRead(this.em, this.config.analyticsStatementTimeoutMs, signal, async (tx) => {
      const codes = await selectCodes(tx, auth, sel);
      const set = codeSet(codes, now);
      const whole = sel.folderId === undefined && sel.tag === undefined && sel.type === undefined && sel.codeIds.length === 0;
      // The whole workspace: its rollups, minus its trashed and paused codes (while those are the fewer). A folder, tag
      // or type selecting most of the workspace: its rollups minus every other dynamic code (while those are the
      // fewer), so the cost follows the smaller side instead of the selection's codes × hours.
      const excluded = whole
        ? await inactiveDynamicCodeIds(tx, auth)
        : sel.codeIds.length === 0 && codes.length > 0
          ? await otherDynamicCodeIds(tx, auth, set.ids, codes.length)
          : null;
      if (excluded !== null && excluded.length <= codes.length) {
        set.workspace = { organizationId: auth.organizationId, environment: auth.environment, excluded };
      }
      return { codes, body: await analyticsOver(tx, set, req, true) };
    });
    const names = new Map(codes.map((c) => [c.id, c.name]));
    const qrCodes = (body.qr_codes ?? []).map((c) => ({ ...c, name: names.get(c.id) ?? null }));
    return { object: 'analytics', qr_code_id: null, ...body, qr_codes: qrCodes };
  }
}
