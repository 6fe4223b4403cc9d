import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager, LockMode } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import type { ListEnvelope } from '../../common/http/list';
import { newShortCode } from '../../common/ids';

const SHORT_CODE_PLACEHOLDER = newShortCode().replace(/./g, 'x');
import { REDIS } from '../../common/redis/redis.provider';
import { sharedScanCount } from '../../common/redis/scan-number-key';
import { EventsService } from '../events/events.service';
import { gs1Dictionary } from '../gs1/syntax-dictionary';
import { folderExists } from '../folders/folders.repository';
import { resolveCodeDomain } from '../domains/code-domain';
import { Design, parseDesign, storedDesign } from '../rendering/design';
import { contentTypeOf, type ImageRequest } from '../rendering/image-request';
import type { CreateQrCodeDto, ListQrCodesQueryDto, PreviewQrCodeDto, UpdateQrCodeDto } from './dto/qr-code.dto';
import type { ScannabilityReport } from '../rendering/scannability';
import type { DeletedQrCodeDto, QrCodeDto } from './dto/qr-code-response.dto';
import { QrCode } from './qr-code.entity';
import type { CreateGs1QrCodeDto } from '../gs1/gs1.dto';
import { assertGs1IdentifierFree, assertGs1PrefixGranted, assertRoomFor, countLive, gs1TakenError, isGs1KeyConflict, planCountOf } from './qr-code-limits';
import { gs1Kind } from '../gs1/gs1-kind';
import { targetDraft } from './qr-code-draft';
import { QrCodeImagesService, type StoragePins } from './qr-code-images.service';
import { ScanCacheInvalidator } from './scan-cache-invalidator';
import { listQrCodes } from './qr-codes.list';
import type { PresentableCode } from './qr-code.presenter';
import { type CodeDraft, folderGoneError, isFolderGone, QrCodeCreationService } from './qr-code-creation.service';
import { templateDesign } from '../templates/templates.repository';
import { FieldReader } from '../targets/fields';
import { normalizeTags, sameJson } from './qr-code-rules';
import { fileSlug } from '../../common/http/file-slug';
import { parseTarget, PREVIEW_TARGET, ruleTester, storedHandler } from '../targets/registry';
import { parseTestFacts } from '../targets/smart-rules';
import { LINK_CONTROL_FIELDS, parseLinkControls } from '../targets/link-controls';

/** How many times a PATCH is worked out again when another change of the code committed while it was prepared. */
const PATCH_ATTEMPTS = 10;
/** Thrown inside a PATCH's transaction when the locked row's target or design is not the one the merge was made from. */
class MergedFromStaleRow extends Error {}

@Injectable()
export class QrCodesService {
  private readonly logger = new Logger(QrCodesService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    private readonly images: QrCodeImagesService,
    private readonly events: EventsService,
    private readonly creation: QrCodeCreationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly invalidator: ScanCacheInvalidator,
  ) {
    gs1Dictionary(); // a missing or malformed GS1 Syntax Dictionary stops the process at boot, not a request later
  }

  /** The QR code object (one presenter: QrCodeCreationService.present, which the creation path uses too). */
  private present(code: PresentableCode): QrCodeDto {
    return this.creation.present(code);
  }

  /** What the symbol encodes (QrCodeCreationService.payloadOf). */
  payloadOf(code: Pick<QrCode, 'kind' | 'shortCode' | 'type' | 'target' | 'domainHostname'>): string {
    return this.creation.payloadOf(code);
  }

  /** Locks the workspace row so plan counts cannot race, then counts its live dynamic codes (GS1 codes apart) and the
   * room reserved for accepted work (batches still creating theirs). */
  countLiveDynamic(em: EntityManager, organizationId: string): Promise<number> {
    return countLive(em, organizationId, 'dynamic');
  }

  async assertFolder(auth: AuthContext, folderId: string | null | undefined, em: EntityManager = this.em): Promise<void> {
    if (!folderId) return;
    if (!(await folderExists(em, auth, folderId))) throw new ApiException('not_found', `No such folder: '${folderId}'`, { field: 'folder_id' });
  }

  /**
   * Everything that can refuse a creation body (standard or GS1), and nothing that writes: the target type's own rules
   * (GS1 identifiers included), the kind and plan entitlement, the design (a template's, with the body's design over it
   * field by field), tags, folder, the host (custom domain), fit, and a GS1 identifier's availability. Single creation
   * and every batch item go through here, so a rule added here holds for both. `opts.design` replaces the body's design
   * and template (a batch's design, resolved once for all its items); `opts.batchId` names the batch an item belongs to,
   * whose reservation already holds the item's room.
   */
  async prepare(auth: AuthContext, body: CreateQrCodeDto | CreateGs1QrCodeDto, opts: { design?: Design; batchId?: string } = {}): Promise<CodeDraft> {
    const { kind, type, target, gs1Key, namedAfterPayload } = await targetDraft(auth, body, { em: this.em, owner: auth });
    const design = opts.design ?? (await this.designOf(auth, body));
    const tags = body.tags === undefined ? [] : normalizeTags(body.tags);
    await this.assertFolder(auth, body.folder_id);
    const domain = await resolveCodeDomain(this.em, auth, kind, body.domain_id);
    const domainHostname = domain?.hostname ?? null;
    // Checked before any logo is fetched and stored, so a refused request leaves nothing behind. Every short code has
    // the same length and alphabet, so a fixed one stands for the code's own (and the check is cached across items).
    this.images.assertFits(this.payloadOf({ kind, shortCode: SHORT_CODE_PLACEHOLDER, type, target, domainHostname }), design);
    if (gs1Key) {
      // A full GS1 allowance (403) is said before a taken identifier (409); both are checked again when inserting.
      await this.em.transactional((em) => assertRoomFor(em, auth, gs1Kind.planCount, 1, opts.batchId));
      // On the shared scan host an operator may require licensed company prefixes (a custom domain needs none).
      if (!domain && this.config.gs1RequirePrefix) await assertGs1PrefixGranted(this.em, auth, gs1Key);
      await assertGs1IdentifierFree(this.em, domain ? { id: domain.id, hostname: domain.hostname } : null, gs1Key, auth.organizationId);
    }
    const controls = await parseLinkControls(body, { kind, type });
    const values: CodeDraft['values'] = { folderId: body.folder_id ?? null, tags, domainId: domain?.id ?? null, domainHostname, gs1Key, ...controls };
    if (body.name !== undefined) values.name = body.name;
    return { kind, type, target, design, values, namedAfterPayload };
  }

  /**
   * The image a code with this body would get (or its scannability report), without storing or counting anything: the
   * body goes through every check of creation (prepare), a dynamic code encodes a placeholder short URL of the real
   * length on the host it would get, and a logo is fetched and checked but not stored.
   */
  async preview(auth: AuthContext, body: PreviewQrCodeDto, req: ImageRequest, check: boolean): Promise<{ report: ScannabilityReport } | { body: Buffer | string; contentType: string }> {
    const kind = body.type ?? 'dynamic';
    if (!body.target && kind === 'static') throw ApiException.invalid('target', 'target is required to preview a static code');
    const creation: CreateQrCodeDto = { type: body.type, target: body.target ?? { ...PREVIEW_TARGET }, design: body.design, template_id: body.template_id };
    const draft = await this.prepare(auth, creation);
    const payload = this.payloadOf({ kind: draft.kind, shortCode: SHORT_CODE_PLACEHOLDER, type: draft.type, target: draft.target, domainHostname: draft.values.domainHostname ?? null });
    const logo = await this.images.loadLogo(draft.design);
    if (check) return { report: await this.images.check(req, payload, draft.design, logo) };
    return { body: await this.images.drawWith(req, payload, draft.design, logo), contentType: contentTypeOf(req.format) };
  }

  /** The design of a new code: the body's, merged field by field over its template's when `template_id` is given. */
  async designOf(auth: AuthContext, body: { design?: Record<string, unknown> | null; template_id?: string | null }): Promise<Design> {
    const template = body.template_id ? await templateDesign(this.em, auth, body.template_id) : undefined;
    const base = template?.design;
    return parseDesign(body.design ?? (base ? undefined : {}), { base, baseNamesErrorCorrection: template?.namesErrorCorrection });
  }

  /** A batch's design, resolved once for all its items and checked as a code's, its logo too (fetched or decoded,
   * not stored): a logo every item would refuse is a 400 before the batch is accepted. */
  async checkedDesignOf(auth: AuthContext, body: { design?: Record<string, unknown> | null; template_id?: string | null }): Promise<Design> {
    const design = await this.designOf(auth, body);
    await this.images.checkLogo(design);
    return design;
  }

  /** Creates a code: prepare, then the creation service draws, stores and inserts it. */
  async create(auth: AuthContext, body: CreateQrCodeDto | CreateGs1QrCodeDto): Promise<QrCodeDto> {
    const code = await this.creation.createOne(auth, await this.prepare(auth, body));
    await this.invalidate(code);
    return this.present(code);
  }

  /** A live code of the workspace and the key's environment (test or live), or 404 (foreign ids, the other
   * environment's codes, trashed and paused codes alike). With `lock` (inside a transaction) its row is locked for the
   * transaction and read afresh, so that concurrent changes of one code apply one after the other, each on what the
   * previous one left (the audit log's before values and updated_at follow their order). */
  async findLive(auth: AuthContext, id: string, em: EntityManager = this.em, lock = false, refresh = lock): Promise<QrCode> {
    const where = { id, organizationId: auth.organizationId, environment: auth.environment, status: 'live' } as const;
    const options = lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : refresh ? { refresh: true } : {};
    const code = !/^s?qr_[0-9A-Za-z]+$/.test(id) ? null : await em.findOne(QrCode, where, options);
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
    // A new image or logo is pinned from before it is stored until the code's new row is committed (or refused).
    const pins = this.images.pins();
    try {
      return await this.updateWith(auth, id, body, pins);
    } finally {
      await this.images.unpin(pins);
    }
  }

  /**
   * A PATCH merges its target and design into the code's current ones, worked out (logo fetched, image drawn) before
   * the row is locked. If another change of the same code committed in between, the merge was made from values that
   * are gone: it is made again from the new row (up to PATCH_ATTEMPTS times), so that two PATCHes sent at once each
   * keep the other's fields.
   */
  private async updateWith(auth: AuthContext, id: string, body: UpdateQrCodeDto, pins: StoragePins, attempt = 1): Promise<QrCodeDto> {
    const code = await this.findLive(auth, id, this.em, false, attempt > 1);
    // A target-typed code is patched through its handler; a GS1 code (no handler) through its kind's own fields.
    const handler = gs1Kind.owns(code) ? null : storedHandler(code.type);
    // Refusals first: nothing is applied when any part of the request is refused.
    if (!handler) gs1Kind.assertPatch(code.kind, body);
    const gs1Only = handler ? gs1Kind.patchOnlyFields.find((f) => body[f as keyof UpdateQrCodeDto] !== undefined) : undefined;
    if (gs1Only) throw ApiException.invalid(gs1Only, `Unknown field '${gs1Only}' (only GS1 codes take it)`);
    if (body.domain_id !== undefined && body.domain_id !== code.domainId) {
      throw new ApiException('domain_id_immutable', 'domain_id cannot change after creation', { field: 'domain_id' });
    }
    if (code.kind === 'static') {
      const refused = (['target', 'tags', 'is_active', ...LINK_CONTROL_FIELDS] as const).find((f) => body[f] !== undefined);
      if (refused) {
        throw new ApiException('code_not_editable', `Static codes cannot change '${refused}': only name, folder_id and design can be updated`, { field: refused });
      }
    }
    if (body.target !== undefined && handler?.pageHolding) {
      throw new ApiException('target_not_editable', `The target of a ${code.type} code is hosted content and cannot be changed through PATCH: replace it with PUT /v1/qr-codes/${code.id}/content`, {
        field: 'target',
      });
    }
    let next: { type: string; target: Record<string, unknown> } | undefined;
    if (body.target !== undefined && handler) {
      const { type, ...fields } = body.target;
      if (type !== undefined && type !== code.type) {
        throw ApiException.invalid('target.type', `target.type cannot change (this is a ${code.type} code)`);
      }
      next = handler.patch(code.target, new FieldReader(fields));
    }
    if (!handler) {
      const target = gs1Kind.patch(code.target, body);
      if (target) next = { type: code.type, target };
    }
    const controls = await parseLinkControls(body, code);
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
        if (design.logo?.url !== current.logo?.url) logoKey = await this.images.prepareLogo(design, pins);
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
    if (controls.expiresAt !== undefined && controls.expiresAt?.getTime() !== code.expiresAt?.getTime()) changes.expiresAt = controls.expiresAt;
    if (controls.maxScans !== undefined && controls.maxScans !== code.maxScans) changes.maxScans = controls.maxScans;
    if (controls.expiredUrl !== undefined && controls.expiredUrl !== code.expiredUrl) changes.expiredUrl = controls.expiredUrl;
    if (controls.passwordHash !== undefined && !(controls.passwordHash === null && code.passwordHash === null)) changes.passwordHash = controls.passwordHash;
    let newImageKey: string | undefined;
    if (design) {
      changes.design = design;
      changes.logoKey = logoKey;
      const payload = this.payloadOf(code); // fits: checked before the logo was fetched
      newImageKey = await this.images.store(payload, design, logoKey, pins);
      if (newImageKey !== code.imageKey) changes.imageKey = newImageKey;
    }
    if (Object.keys(changes).length === 0) return this.present(code);

    const oldImageKey = code.imageKey;
    const oldLogoKey = code.logoKey;
    // Copies: the transaction's locked read refreshes the same entity object in place.
    const mergedFrom = { target: structuredClone(code.target), design: structuredClone(code.design) };
    try {
      await this.em.transactional(async (em) => {
        const locked = await this.findLive(auth, id, em, true);
        if (!sameJson(locked.target, mergedFrom.target) || !sameJson(locked.design, mergedFrom.design)) throw new MergedFromStaleRow();
        // A field another request already set to this value (the same PATCH sent twice at once) is no change: when
        // none is left, nothing is written and no qr.updated is sent.
        for (const field of Object.keys(changes) as (keyof QrCode)[]) {
          if (field !== 'target' && field !== 'design' && field !== 'imageKey' && field !== 'logoKey' && field !== 'passwordHash' && sameJson(changes[field], locked[field])) {
            delete changes[field];
          }
        }
        if (Object.keys(changes).length > 0) {
          await this.images.hold(em, [changes.imageKey, changes.logoKey]);
          em.assign(locked, { ...changes, updatedAt: new Date() });
          await em.flush();
          await this.events.emit(em, auth, 'qr.updated', this.present(locked));
        }
        Object.assign(code, locked);
      });
    } catch (err) {
      // Worked out again: what this attempt stored stays pinned (the next attempt may store the same objects), and what
      // no attempt references is deleted when the writer unpins.
      if (err instanceof MergedFromStaleRow && attempt < PATCH_ATTEMPTS) return this.updateWith(auth, id, body, pins, attempt + 1);
      await this.images.release([newImageKey !== oldImageKey ? newImageKey : null, changes.logoKey !== oldLogoKey ? changes.logoKey : null]);
      if (err instanceof MergedFromStaleRow) {
        throw new ApiException('service_unavailable', 'This QR code kept changing while the update was applied; nothing was changed. Retry in a moment.', { retryAfter: 1 });
      }
      // The folder named was deleted after it was checked: the 404 a later request gets.
      if (isFolderGone(err) && body.folder_id) throw folderGoneError(body.folder_id);
      throw err;
    }
    await this.invalidate(code);
    await this.images.release([changes.imageKey ? oldImageKey : null, changes.logoKey !== undefined && oldLogoKey !== changes.logoKey ? oldLogoKey : null]);
    return this.present(code);
  }

  /**
   * `PUT /qr-codes/{id}/content`: replaces the content of a page-holding code (a smart URL's rules included) with a body
   * of the creation fields minus `type`, validated by the type's handler. The short URL and image stay; qr.updated is
   * emitted and the scan processes drop the code, so the next scan anywhere sees the new content.
   */
  async replaceContent(auth: AuthContext, id: string, body: Record<string, unknown>): Promise<QrCodeDto> {
    const code = await this.findLive(auth, id);
    const handler = gs1Kind.owns(code) ? null : storedHandler(code.type);
    if (code.kind !== 'dynamic') {
      throw new ApiException('target_not_editable', 'A static code has no hosted content: its content is printed in the code and cannot change');
    }
    if (!handler || !handler.pageHolding) {
      throw new ApiException('target_not_editable', `A ${code.type} code has no hosted content: change its target with PATCH /v1/qr-codes/${code.id}`);
    }
    if (body.type !== undefined && body.type !== code.type) throw ApiException.invalid('type', `type must be omitted or '${code.type}' (a code's type cannot change)`);
    const fields = { ...body };
    delete fields.type;
    const target = await parseTarget(handler, new FieldReader(fields, ''), 'dynamic', { em: this.em, owner: auth, current: code.target });
    if (sameJson(target, code.target)) return this.present(code);
    await this.em.transactional(async (em) => {
      const locked = await this.findLive(auth, id, em, true);
      em.assign(locked, { target, updatedAt: new Date() });
      await em.flush();
      await this.events.emit(em, auth, 'qr.updated', this.present(locked));
      Object.assign(code, locked);
    });
    await this.invalidate(code);
    return this.present(code);
  }

  /** `POST /qr-codes/{id}/rules/test`: what a scan with these facts would get from a smart URL's rules; counts nothing. */
  async testRules(auth: AuthContext, id: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const code = await this.findLive(auth, id);
    const test = ruleTester(code.type);
    if (!test) throw new ApiException('rules_not_supported', `Only smart-URL codes have rules (this is a ${code.type} code)`);
    const facts = parseTestFacts(new FieldReader(body, '', true), (await sharedScanCount(this.redis, code.id, Number(code.scanCount))) + 1);
    return test(code.target, facts);
  }

  async remove(auth: AuthContext, id: string): Promise<DeletedQrCodeDto> {
    const code = await this.em.transactional(async (em) => {
      const code = await this.findLive(auth, id, em, true);
      const now = new Date();
      em.assign(code, { status: 'trashed', deletedAt: now, updatedAt: now });
      await em.flush();
      await this.events.emit(em, auth, 'qr.deleted', this.present(code));
      return code;
    });
    await this.invalidate(code);
    return { id: code.id, object: 'qr_code', deleted: true };
  }

  async restore(auth: AuthContext, id: string): Promise<QrCodeDto> {
    const code = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(QrCode, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!code) throw ApiException.notFound('QR code', id);
    if (code.status === 'live') return this.present(code);
    const where = { id, organizationId: auth.organizationId, environment: auth.environment };
    // Restores of one code sent at once: the first restores it, the others find it live under the row's lock and
    // answer as for a live code (200, no event).
    let alreadyLive = false;
    const restored = await this.em.transactional(async (em) => {
      const count = planCountOf(code);
      if (count) await assertRoomFor(em, auth, count); // locks the workspace's capacity first, as creation does
      const locked = await em.findOne(QrCode, where, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (locked?.status === 'live') {
        alreadyLive = true;
        return locked;
      }
      if (!locked || (locked.status !== 'trashed' && locked.status !== 'paused')) throw ApiException.notFound('QR code', id);
      em.assign(locked, { status: 'live', deletedAt: null, updatedAt: new Date() });
      await em.flush();
      await this.events.emit(em, auth, 'qr.restored', this.present(locked));
      // A restore from the dashboard (a signed-in user) also says the code changed, for integrations that only follow
      // qr.updated.
      if (auth.actor?.type === 'user') await this.events.emit(em, auth, 'qr.updated', this.present(locked));
      return locked;
    }).catch(async (err: unknown) => {
      // The plan's last free place, taken by a restore of this same code that committed meanwhile: it is live.
      if (err instanceof ApiException && err.code === 'plan_limit_reached') {
        const now = await this.em.findOne(QrCode, where, { refresh: true });
        if (now?.status === 'live') {
          alreadyLive = true;
          return now;
        }
      }
      // A paused GS1 code whose identifier another code took meanwhile.
      throw isGs1KeyConflict(err) ? gs1TakenError(code.gs1Key!) : err;
    });
    if (alreadyLive) return this.present(restored);
    await this.invalidate(restored);
    return this.present(restored);
  }

  async download(auth: AuthContext, id: string, req: ImageRequest): Promise<{ body: Buffer | string; contentType: string; filename: string }> {
    const code = await this.findLive(auth, id);
    const design = storedDesign(code.design);
    const payload = this.payloadOf(code);
    const slug = fileSlug(code.name, code.id);
    const body = await this.images.draw(req, payload, design, code.logoKey);
    return { body, contentType: contentTypeOf(req.format), filename: `${slug}.${req.format}` };
  }

  /** The live codes among `ids` (workspace and environment of `auth`, read 100 at a time), each with a `draw` the
   * caller runs when it wants the image: a 1,000-image archive holds only the images it is about to write. Codes gone
   * since are yielded with `code: null`. */
  /** How many images like `req` are drawn at once (a batch ZIP draws that many ahead, and one more). */
  drawsAtOnce(req: ImageRequest): number {
    return this.images.drawsAtOnce(req);
  }

  async *downloadables(auth: AuthContext, ids: string[]): AsyncGenerator<{ id: string; code: QrCodeDto | null; draw(req: ImageRequest): Promise<Buffer | string> }> {
    for (let i = 0; i < ids.length; i += 100) {
      const page = ids.slice(i, i + 100);
      const where = { id: { $in: page }, organizationId: auth.organizationId, environment: auth.environment, status: 'live' as const };
      const codes = new Map((await this.em.fork().find(QrCode, where)).map((c) => [c.id, c]));
      for (const id of page) {
        const code = codes.get(id);
        const draw = (req: ImageRequest) =>
          code ? this.images.draw(req, this.payloadOf(code), storedDesign(code.design), code.logoKey) : Promise.reject(new Error('gone'));
        yield { id, code: code ? this.present(code) : null, draw };
      }
    }
  }

  /** Scan processes drop the code from their caches before the change is answered (docs/scan-host.md: a new
   * destination works on the next scan). Never rejects. */
  invalidate(code: Pick<QrCode, 'id' | 'shortCode' | 'domainId' | 'kind' | 'gs1Key'>): Promise<void> {
    return this.invalidator.invalidate(code);
  }
}
