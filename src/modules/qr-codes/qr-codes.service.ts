import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { newId, newShortCode } from '../../common/ids';
import { CHANNELS } from '../../common/queue/channels';
import { REDIS } from '../../common/redis/redis.provider';
import { EventsService } from '../events/events.service';
import { Folder } from '../folders/folder.entity';
import { Design, parseDesign, storedDesign } from '../rendering/design';
import { RenderingService } from '../rendering/rendering.service';
import type { CreateQrCodeDto, UpdateQrCodeDto } from './dto/qr-code.dto';
import { QrCode } from './qr-code.entity';
import { presentQrCode, shortUrl } from './qr-code.presenter';
import { FieldReader } from './targets/fields';
import { handlerFor, storedHandler } from './targets/registry';
import stableStringify from 'safe-stable-stringify';

/** Equal as JSON whatever the key order (jsonb stores object keys in its own order): a PATCH that re-sends what is
 * stored changes nothing, bumps no updated_at and emits no qr.updated. */
const sameJson = (a: unknown, b: unknown): boolean => stableStringify(a) === stableStringify(b);

const MAX_TAGS = 10;
const MAX_TAG_LENGTH = 50;

export function normalizeTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) throw ApiException.invalid('tags', 'tags must be an array of strings');
  const out: string[] = [];
  for (const t of tags) {
    if (typeof t !== 'string') throw ApiException.invalid('tags', 'tags must be an array of strings');
    const s = t.trim();
    if (!s) throw ApiException.invalid('tags', 'tags must not contain empty strings');
    if (s.length > MAX_TAG_LENGTH) throw ApiException.invalid('tags', `each tag must be at most ${MAX_TAG_LENGTH} characters`);
    if (!out.includes(s)) out.push(s);
  }
  if (out.length > MAX_TAGS) throw ApiException.invalid('tags', `tags must have at most ${MAX_TAGS} items`);
  return out;
}

function planLimitError(auth: AuthContext, current: number, requested = 1): ApiException {
  return new ApiException(
    'plan_limit_reached',
    `The ${auth.plan.id} plan allows ${auth.plan.dynamic_qr_limit} live dynamic QR codes; ${current} exist`,
    { limit: auth.plan.dynamic_qr_limit, current_count: current, requested, plan_id: auth.plan.id },
  );
}

@Injectable()
export class QrCodesService {
  private readonly logger = new Logger(QrCodesService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly rendering: RenderingService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  present(code: QrCode): Record<string, unknown> {
    return presentQrCode(code, { scanBaseUrl: this.config.scanBaseUrl, imageUrl: (k) => this.rendering.imageUrl(k) });
  }

  /** What the symbol encodes: the short URL for dynamic codes, the payload for static ones. */
  payloadOf(code: Pick<QrCode, 'kind' | 'shortCode' | 'type' | 'target'>): string {
    return code.kind === 'dynamic' ? shortUrl(code, this.config.scanBaseUrl)! : storedHandler(code.type).payload(code.target);
  }

  /** Locks the workspace row so plan counts cannot race, then counts its live dynamic codes. */
  async countLiveDynamic(em: EntityManager, organizationId: string): Promise<number> {
    await em.execute('select id from organizations where id = ? for update', [organizationId]);
    const [row] = await em.execute<{ n: string }[]>(
      `select count(*) as n from qr_codes where organization_id = ? and kind = 'dynamic' and status = 'live'`,
      [organizationId],
    );
    return Number(row.n);
  }

  async assertFolder(auth: AuthContext, folderId: string | null | undefined, em: EntityManager = this.em): Promise<void> {
    if (!folderId) return;
    const folder = await em.findOne(Folder, { id: folderId, organizationId: auth.organizationId, environment: auth.environment });
    if (!folder) throw new ApiException('not_found', `No such folder: '${folderId}'`, { field: 'folder_id' });
  }

  /** Creates a code. `opts.id` reserves the id (batches: a resumed worker finds the code instead of creating it twice);
   * `opts.design` replaces the body's design (a batch's design applies to every item). */
  /** The stored logo of a design (fetched, checked and stored once), or null when it has none. Batches call it once
   * for all their items. */
  async prepareDesignLogo(design: Record<string, unknown>): Promise<string | null> {
    const parsed = parseDesign(design);
    return parsed.logo ? this.rendering.prepareLogo(parsed.logo.url) : null;
  }

  async create(
    auth: AuthContext,
    body: CreateQrCodeDto,
    opts: { id?: string; design?: Record<string, unknown>; logoKey?: string | null } = {},
  ): Promise<Record<string, unknown>> {
    const kind = body.type ?? 'dynamic';
    const handler = handlerFor(body.target.type);
    if (kind === 'static' && !handler.staticCapable) {
      throw ApiException.invalid('type', `${handler.type} codes are dynamic only; type 'static' is honoured for url, text, email, sms, wifi, event, vcard and location`);
    }
    if (kind === 'dynamic' && auth.plan.dynamic_qr_limit === 0) {
      throw new ApiException('plan_restricted', `The ${auth.plan.id} plan includes static codes only; create it with type 'static' or upgrade`, {
        plan_id: auth.plan.id,
      });
    }
    const target = handler.parse(new FieldReader(body.target), kind);
    const design = parseDesign(opts.design ?? body.design ?? {});
    const tags = body.tags === undefined ? [] : normalizeTags(body.tags);
    await this.assertFolder(auth, body.folder_id);
    // Everything that can refuse the request is checked before the logo is fetched and stored, so a refused request
    // leaves no logo behind (the plan limit is checked again, race-safe, in the transaction below).
    this.rendering.assertFits(this.payloadOf({ kind, shortCode: newShortCode(), type: handler.type, target }), design);
    if (kind === 'dynamic') {
      const current = await this.countLiveDynamic(this.em, auth.organizationId);
      if (current + 1 > auth.plan.dynamic_qr_limit) throw planLimitError(auth, current);
    }
    const logoKey = design.logo ? (opts.logoKey !== undefined ? opts.logoKey : await this.rendering.prepareLogo(design.logo.url)) : null;

    for (let attempt = 0; ; attempt++) {
      const shortCode = newShortCode();
      const id = opts.id ? `${kind === 'dynamic' ? 'qr' : 'sqr'}_${opts.id.replace(/^s?qr_/, '')}` : newId(kind === 'dynamic' ? 'qr' : 'sqr');
      const now = new Date();
      const draft = { kind, shortCode, type: handler.type, target };
      const payload = this.payloadOf(draft); // fits: checked above (every short code has the same length)
      const imageKey = await this.rendering.storeSvg(await this.rendering.renderSvg(payload, design, logoKey));
      try {
        const code = await this.em.transactional(async (em) => {
          if (kind === 'dynamic') {
            const current = await this.countLiveDynamic(em, auth.organizationId);
            if (current + 1 > auth.plan.dynamic_qr_limit) throw planLimitError(auth, current);
          }
          const code = em.create(QrCode, {
            id,
            organizationId: auth.organizationId,
            kind,
            name: body.name ?? `${kind === 'dynamic' ? 'Campaign' : 'Static'} ${shortCode}`,
            type: handler.type,
            shortCode,
            target,
            design: design as unknown as Record<string, unknown>,
            folderId: body.folder_id ?? null,
            tags,
            environment: auth.environment,
            imageKey,
            logoKey,
            createdAt: now,
            updatedAt: now,
          });
          await em.flush();
          await this.events.emit(em, auth.organizationId, 'qr.created', this.present(code));
          return code;
        });
        this.invalidate(code);
        return this.present(code);
      } catch (err) {
        await this.releaseImage(imageKey);
        if (err instanceof UniqueConstraintViolationException && attempt < 5) continue;
        // A logo this request fetched (not one a batch passed in) goes too, unless another code uses it.
        if (logoKey && opts.logoKey === undefined) await this.releaseLogo(logoKey);
        throw err;
      }
    }
  }

  /** A live code of the workspace and the key's environment (test or live), or 404 (foreign ids, the other
   * environment's codes, trashed and paused codes alike). */
  async findLive(auth: AuthContext, id: string, em: EntityManager = this.em): Promise<QrCode> {
    const code = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment, status: 'live' }) : null;
    if (!code) throw ApiException.notFound('QR code', id);
    return code;
  }

  async retrieve(auth: AuthContext, id: string): Promise<Record<string, unknown>> {
    return this.present(await this.findLive(auth, id));
  }

  async update(auth: AuthContext, id: string, body: UpdateQrCodeDto): Promise<Record<string, unknown>> {
    const code = await this.findLive(auth, id);
    const handler = storedHandler(code.type);
    // Refusals first: nothing is applied when any part of the request is refused.
    if (body.domain_id !== undefined && body.domain_id !== code.domainId) {
      throw new ApiException('domain_id_immutable', 'domain_id cannot change after creation', { field: 'domain_id' });
    }
    if (code.kind === 'static') {
      const refused = (['target', 'tags', 'is_active'] as const).find((f) => body[f] !== undefined);
      if (refused) {
        throw new ApiException('code_not_editable', `Static codes cannot change '${refused}': only name, folder_id and design can be updated`, { field: refused });
      }
    }
    if (body.target !== undefined && handler.pageHolding) {
      throw new ApiException('target_not_editable', `The target of a ${code.type} code is a hosted page and cannot be changed through the API`, {
        field: 'target',
      });
    }
    let next: { type: string; target: Record<string, unknown> } | undefined;
    if (body.target !== undefined) {
      const { type, ...fields } = body.target;
      if (type !== undefined && type !== code.type) {
        throw ApiException.invalid('target.type', `target.type cannot change (this is a ${code.type} code)`);
      }
      next = handler.patch(code.target, new FieldReader(fields));
    }
    const tags = body.tags === undefined ? undefined : normalizeTags(body.tags);
    if (body.folder_id !== undefined) await this.assertFolder(auth, body.folder_id);
    let design: Design | undefined;
    let logoKey = code.logoKey;
    if (body.design !== undefined) {
      const current = storedDesign(code.design);
      design = parseDesign(body.design, { base: current });
      if (sameJson(design, current)) design = undefined;
      else {
        // Refusals first, so that a refused request leaves no fetched logo behind.
        this.rendering.assertFits(this.payloadOf(code), design);
        if (design.logo?.url !== current.logo?.url) logoKey = design.logo ? await this.rendering.prepareLogo(design.logo.url) : null;
      }
    }

    const changes: Partial<QrCode> = {};
    if (body.name !== undefined && body.name !== code.name) changes.name = body.name;
    if (next && (next.type !== code.type || !sameJson(next.target, code.target))) {
      changes.type = next.type;
      changes.target = next.target;
    }
    if (body.folder_id !== undefined && body.folder_id !== code.folderId) changes.folderId = body.folder_id;
    if (tags && !sameJson(tags, code.tags)) changes.tags = tags;
    if (body.is_active !== undefined && body.is_active !== code.isActive) changes.isActive = body.is_active;
    let newImageKey: string | undefined;
    if (design) {
      changes.design = design as unknown as Record<string, unknown>;
      changes.logoKey = logoKey;
      const payload = this.payloadOf(code); // fits: checked before the logo was fetched
      newImageKey = await this.rendering.storeSvg(await this.rendering.renderSvg(payload, design, logoKey));
      if (newImageKey !== code.imageKey) changes.imageKey = newImageKey;
    }
    if (Object.keys(changes).length === 0) return this.present(code);

    const oldImageKey = code.imageKey;
    const oldLogoKey = code.logoKey;
    try {
      await this.em.transactional(async (em) => {
        const locked = await this.findLive(auth, id, em);
        em.assign(locked, { ...changes, updatedAt: new Date() });
        await em.flush();
        await this.events.emit(em, auth.organizationId, 'qr.updated', this.present(locked));
        Object.assign(code, locked);
      });
    } catch (err) {
      if (newImageKey && newImageKey !== oldImageKey) await this.releaseImage(newImageKey);
      if (changes.logoKey && changes.logoKey !== oldLogoKey) await this.releaseLogo(changes.logoKey);
      throw err;
    }
    this.invalidate(code);
    if (changes.imageKey && oldImageKey) await this.releaseImage(oldImageKey);
    if (changes.logoKey !== undefined && oldLogoKey && oldLogoKey !== changes.logoKey) await this.releaseLogo(oldLogoKey);
    return this.present(code);
  }

  async remove(auth: AuthContext, id: string): Promise<{ id: string; object: 'qr_code'; deleted: true }> {
    const code = await this.em.transactional(async (em) => {
      const code = await this.findLive(auth, id, em);
      const now = new Date();
      em.assign(code, { status: 'trashed', deletedAt: now, updatedAt: now });
      await em.flush();
      await this.events.emit(em, auth.organizationId, 'qr.deleted', this.present(code));
      return code;
    });
    this.invalidate(code);
    return { id: code.id, object: 'qr_code', deleted: true };
  }

  async restore(auth: AuthContext, id: string): Promise<Record<string, unknown>> {
    const code = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!code) throw ApiException.notFound('QR code', id);
    if (code.status === 'live') return this.present(code);
    const restored = await this.em.transactional(async (em) => {
      if (code.kind === 'dynamic') {
        const current = await this.countLiveDynamic(em, auth.organizationId);
        if (current + 1 > auth.plan.dynamic_qr_limit) throw planLimitError(auth, current);
      }
      const locked = await em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment, status: { $in: ['trashed', 'paused'] } });
      if (!locked) throw ApiException.notFound('QR code', id);
      em.assign(locked, { status: 'live', deletedAt: null, updatedAt: new Date() });
      await em.flush();
      await this.events.emit(em, auth.organizationId, 'qr.restored', this.present(locked));
      return locked;
    });
    this.invalidate(restored);
    return this.present(restored);
  }

  async download(auth: AuthContext, id: string, format: 'svg' | 'png', size: number): Promise<{ body: Buffer | string; contentType: string; filename: string }> {
    const code = await this.findLive(auth, id);
    const design = storedDesign(code.design);
    const payload = this.payloadOf(code);
    const slug = code.name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[\s_-]+/g, '-').slice(0, 80) || code.id;
    if (format === 'png') {
      return { body: await this.rendering.renderPng(payload, design, code.logoKey, size), contentType: 'image/png', filename: `${slug}.png` };
    }
    return { body: await this.rendering.renderSvg(payload, design, code.logoKey, size), contentType: 'image/svg+xml', filename: `${slug}.svg` };
  }

  /** Scan processes drop the code from their caches (spec: a new destination works on the next scan). */
  invalidate(code: Pick<QrCode, 'id' | 'shortCode' | 'domainId' | 'kind'>): void {
    if (code.kind !== 'dynamic') return;
    this.redis
      .publish(CHANNELS.qrInvalidate, JSON.stringify({ id: code.id, short_code: code.shortCode, domain_id: code.domainId }))
      .catch((err: Error) => this.logger.warn(`cache invalidation publish failed: ${err.message}`));
  }

  /** Images are content-addressed and may be shared by identical codes: delete only when no code refers to them. */
  async releaseImage(key: string): Promise<void> {
    const [row] = await this.em.fork().execute<{ n: string }[]>('select count(*) as n from qr_codes where image_key = ?', [key]);
    if (Number(row.n) === 0) await this.rendering.deleteObject(key).catch(() => undefined);
  }

  async releaseLogo(key: string): Promise<void> {
    const [row] = await this.em.fork().execute<{ n: string }[]>('select count(*) as n from qr_codes where logo_key = ?', [key]);
    if (Number(row.n) === 0) await this.rendering.deleteObject(key).catch(() => undefined);
  }
}
