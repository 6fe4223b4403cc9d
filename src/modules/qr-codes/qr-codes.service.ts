import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import type { ListEnvelope } from '../../common/http/list';
import { newId, newShortCode } from '../../common/ids';
import { CHANNELS } from '../../common/queue/channels';
import { REDIS } from '../../common/redis/redis.provider';
import { EventsService } from '../events/events.service';
import { gs1Dictionary } from '../gs1/syntax-dictionary';
import { folderExists } from '../folders/folders.repository';
import { codeDomainError, resolveCodeDomain } from '../domains/code-domain';
import { Design, parseDesign, storedDesign } from '../rendering/design';
import type { CreateQrCodeDto, ListQrCodesQueryDto, UpdateQrCodeDto } from './dto/qr-code.dto';
import type { DeletedQrCodeDto, QrCodeDto } from './dto/qr-code-response.dto';
import { QrCode } from './qr-code.entity';
import { GS1_PATCH_ONLY_FIELDS, type CreateGs1QrCodeDto } from './dto/gs1.dto';
import { assertGs1IdentifierFree, assertRoomFor, countLive, gs1TakenError, isGs1KeyConflict, planCountOf } from './qr-code-limits';
import { assertGs1Patch, patchGs1 } from './targets/gs1.target';
import { codeDraft } from './qr-code-draft';
import { QrCodeImagesService } from './qr-code-images.service';
import { listQrCodes } from './qr-codes.list';
import { presentQrCode, scanOrigin, shortUrl } from './qr-code.presenter';
import { FieldReader } from './targets/fields';
import { normalizeTags, sameJson } from './qr-code-rules';
import { storedHandler } from './targets/registry';

@Injectable()
export class QrCodesService {
  private readonly logger = new Logger(QrCodesService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    private readonly images: QrCodeImagesService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    gs1Dictionary(); // a missing or malformed GS1 Syntax Dictionary stops the process at boot, not a request later
  }

  present(code: QrCode): QrCodeDto {
    return presentQrCode(code, { scanBaseUrl: this.config.scanBaseUrl, imageUrl: (k) => this.images.url(k) });
  }

  /** What the symbol encodes: the short URL for dynamic codes, the payload for static ones. */
  payloadOf(code: Pick<QrCode, 'kind' | 'shortCode' | 'type' | 'target' | 'domainHostname'>): string {
    const handler = storedHandler(code.type);
    if (handler.encodedUrl) return handler.encodedUrl(code.target, code.kind, scanOrigin(code, this.config.scanBaseUrl));
    return code.kind === 'dynamic' ? shortUrl(code, this.config.scanBaseUrl)! : handler.payload(code.target);
  }

  /** Locks the workspace row so plan counts cannot race, then counts its live dynamic codes (GS1 codes apart). */
  countLiveDynamic(em: EntityManager, organizationId: string): Promise<number> {
    return countLive(em, organizationId, 'dynamic');
  }

  async assertFolder(auth: AuthContext, folderId: string | null | undefined, em: EntityManager = this.em): Promise<void> {
    if (!folderId) return;
    if (!(await folderExists(em, auth, folderId))) throw new ApiException('not_found', `No such folder: '${folderId}'`, { field: 'folder_id' });
  }

  /** The stored logo of a design (fetched, checked and stored once), or null when it has none. Batches call it once
   * for all their items. */
  prepareDesignLogo(design: Record<string, unknown>): Promise<string | null> {
    return this.images.prepareLogo(parseDesign(design));
  }

  /** Creates a code. `opts.id` reserves the id (batches: a resumed worker finds the code instead of creating it twice);
   * `opts.design` replaces the body's design (a batch's design applies to every item). */
  async create(
    auth: AuthContext,
    body: CreateQrCodeDto | CreateGs1QrCodeDto,
    opts: { id?: string; design?: Record<string, unknown>; logoKey?: string | null } = {},
  ): Promise<QrCodeDto> {
    const draft = await codeDraft(auth, body, { em: this.em, owner: auth });
    const { kind, type, target, gs1Key } = draft;
    const count = planCountOf(draft);
    const design = parseDesign(opts.design ?? body.design ?? {});
    const tags = body.tags === undefined ? [] : normalizeTags(body.tags);
    await this.assertFolder(auth, body.folder_id);
    const domain = await resolveCodeDomain(this.em, auth, kind, body.domain_id);
    // Everything that can refuse the request is checked before the logo is fetched and stored, so a refused request
    // leaves no logo behind (the plan limit is checked again, race-safe, in the transaction below).
    const domainHostname = domain?.hostname ?? null;
    this.images.assertFits(this.payloadOf({ kind, shortCode: newShortCode(), type, target, domainHostname }), design);
    if (count) await assertRoomFor(this.em, auth, count);
    if (gs1Key) await assertGs1IdentifierFree(this.em, domain?.id ?? null, gs1Key);
    const logoKey = design.logo ? (opts.logoKey !== undefined ? opts.logoKey : await this.images.prepareLogo(design)) : null;

    for (let attempt = 0; ; attempt++) {
      const shortCode = newShortCode();
      const id = opts.id ? `${kind === 'dynamic' ? 'qr' : 'sqr'}_${opts.id.replace(/^s?qr_/, '')}` : newId(kind === 'dynamic' ? 'qr' : 'sqr');
      const now = new Date();
      const payload = this.payloadOf({ kind, shortCode, type, target, domainHostname }); // fits: checked above (every short code has the same length)
      const imageKey = await this.images.store(payload, design, logoKey);
      try {
        const code = await this.em.transactional(async (em) => {
          if (count) await assertRoomFor(em, auth, count);
          if (gs1Key) await assertGs1IdentifierFree(em, domain?.id ?? null, gs1Key);
          const code = em.create(QrCode, {
            id,
            organizationId: auth.organizationId,
            kind,
            name: body.name ?? (draft.namedAfterPayload ? payload.slice(0, 255) : `${kind === 'dynamic' ? 'Campaign' : 'Static'} ${shortCode}`),
            type,
            shortCode,
            domainId: domain?.id ?? null,
            domainHostname,
            target,
            gs1Key,
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
          await this.events.emit(em, auth, 'qr.created', this.present(code));
          return code;
        });
        this.invalidate(code);
        return this.present(code);
      } catch (err) {
        await this.images.releaseImage(imageKey);
        const gs1Conflict = isGs1KeyConflict(err);
        if (err instanceof UniqueConstraintViolationException && !gs1Conflict && attempt < 5) continue; // short codes are unique per domain
        // A logo this request fetched (not one a batch passed in) goes too, unless another code uses it.
        if (logoKey && opts.logoKey === undefined) await this.images.releaseLogo(logoKey);
        if (gs1Conflict) throw gs1TakenError(gs1Key!);
        throw codeDomainError(err, domain);
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

  list(auth: AuthContext, query: ListQrCodesQueryDto): Promise<ListEnvelope<QrCodeDto>> {
    return listQrCodes(this.em, this.cursors, auth, query, (c) => this.present(c));
  }

  async retrieve(auth: AuthContext, id: string): Promise<QrCodeDto> {
    return this.present(await this.findLive(auth, id));
  }

  async update(auth: AuthContext, id: string, body: UpdateQrCodeDto): Promise<QrCodeDto> {
    const code = await this.findLive(auth, id);
    const handler = storedHandler(code.type);
    // Refusals first: nothing is applied when any part of the request is refused.
    if (code.type === 'gs1') assertGs1Patch(code.kind, body);
    const gs1Only = GS1_PATCH_ONLY_FIELDS.find((f) => body[f] !== undefined && code.type !== 'gs1');
    if (gs1Only) throw ApiException.invalid(gs1Only, `Unknown field '${gs1Only}' (only GS1 codes take it)`);
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
    if (code.type === 'gs1' && (body.destination ?? body.links ?? body.overrides) !== undefined) next = { type: 'gs1', target: patchGs1(code.target, body) };
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
        this.images.assertFits(this.payloadOf(code), design);
        if (design.logo?.url !== current.logo?.url) logoKey = await this.images.prepareLogo(design);
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
      newImageKey = await this.images.store(payload, design, logoKey);
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
        await this.events.emit(em, auth, 'qr.updated', this.present(locked));
        Object.assign(code, locked);
      });
    } catch (err) {
      if (newImageKey && newImageKey !== oldImageKey) await this.images.releaseImage(newImageKey);
      if (changes.logoKey && changes.logoKey !== oldLogoKey) await this.images.releaseLogo(changes.logoKey);
      throw err;
    }
    this.invalidate(code);
    if (changes.imageKey && oldImageKey) await this.images.releaseImage(oldImageKey);
    if (changes.logoKey !== undefined && oldLogoKey && oldLogoKey !== changes.logoKey) await this.images.releaseLogo(oldLogoKey);
    return this.present(code);
  }

  async remove(auth: AuthContext, id: string): Promise<DeletedQrCodeDto> {
    const code = await this.em.transactional(async (em) => {
      const code = await this.findLive(auth, id, em);
      const now = new Date();
      em.assign(code, { status: 'trashed', deletedAt: now, updatedAt: now });
      await em.flush();
      await this.events.emit(em, auth, 'qr.deleted', this.present(code));
      return code;
    });
    this.invalidate(code);
    return { id: code.id, object: 'qr_code', deleted: true };
  }

  async restore(auth: AuthContext, id: string): Promise<QrCodeDto> {
    const code = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!code) throw ApiException.notFound('QR code', id);
    if (code.status === 'live') return this.present(code);
    const restored = await this.em.transactional(async (em) => {
      const count = planCountOf(code);
      if (count) await assertRoomFor(em, auth, count);
      const locked = await em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment, status: { $in: ['trashed', 'paused'] } });
      if (!locked) throw ApiException.notFound('QR code', id);
      em.assign(locked, { status: 'live', deletedAt: null, updatedAt: new Date() });
      await em.flush();
      await this.events.emit(em, auth, 'qr.restored', this.present(locked));
      return locked;
    }).catch((err: unknown) => {
      // A paused GS1 code whose identifier another code took meanwhile.
      throw isGs1KeyConflict(err) ? gs1TakenError(code.gs1Key!) : err;
    });
    this.invalidate(restored);
    return this.present(restored);
  }

  async download(auth: AuthContext, id: string, format: 'svg' | 'png', size: number): Promise<{ body: Buffer | string; contentType: string; filename: string }> {
    const code = await this.findLive(auth, id);
    const design = storedDesign(code.design);
    const payload = this.payloadOf(code);
    const slug = code.name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[\s_-]+/g, '-').slice(0, 80) || code.id;
    const body = await this.images.draw(format, payload, design, code.logoKey, size);
    return format === 'png' ? { body, contentType: 'image/png', filename: `${slug}.png` } : { body, contentType: 'image/svg+xml', filename: `${slug}.svg` };
  }

  /** Deletes a logo a batch prepared unless a code uses it. */
  releaseLogo(key: string): Promise<void> {
    return this.images.releaseLogo(key);
  }

  /** Scan processes drop the code from their caches (docs/scan-host.md: a new destination works on the next scan). */
  invalidate(code: Pick<QrCode, 'id' | 'shortCode' | 'domainId' | 'kind' | 'gs1Key'>): void {
    if (code.kind !== 'dynamic') return;
    this.redis
      .publish(CHANNELS.qrInvalidate, JSON.stringify({ id: code.id, short_code: code.shortCode, domain_id: code.domainId, gs1_key: code.gs1Key }))
      .catch((err: Error) => this.logger.warn(`cache invalidation publish failed: ${err.message}`));
  }
}
