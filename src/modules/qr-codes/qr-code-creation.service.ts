import { Inject, Injectable } from '@nestjs/common';
import { EntityManager, ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { ApiException } from '../../common/errors/api.exception';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { newId, newShortCode } from '../../common/ids';
import { EventsService } from '../events/events.service';
import type { Design } from '../rendering/design';
import { QrCode, type QrKind } from './qr-code.entity';
import { QrCodeImagesService, type StoragePins } from './qr-code-images.service';

export type { StoragePins };
import { presentQrCode, scanOrigin, shortUrl, type PresentableCode } from './qr-code.presenter';
import type { QrCodeDto } from './dto/qr-code-response.dto';
import { assertGs1IdentifierFree, assertRoomFor, planCountOf } from './qr-code-limits';
import { codeDomainError } from '../domains/code-domain';
import { storedType } from './code-kinds';

/**
 * A creation body after every check that can refuse it (QrCodesService.prepare): what the new code will hold, except
 * its id, short code and stored images. Single creation and every batch item make one through the same code.
 */
export interface CodeDraft {
  kind: QrKind;
  type: string;
  target: Record<string, unknown>;
  design: Design;
  /** Further columns of the new row the body decided (name, folderId, tags, domainId/domainHostname, gs1Key, …). */
  values: Partial<QrCode> & { tags: string[] };
  /** Unnamed codes are named after what they encode (GS1: the Digital Link URI, also the linkset's itemDescription). */
  namedAfterPayload?: boolean;
}

/** The row named a folder that a DELETE of the folder removed after it was checked (its foreign key refused the row). */
export const isFolderGone = (err: unknown): boolean => err instanceof ForeignKeyConstraintViolationException && err.message.includes('qr_codes_folder_id_fkey');

/** What a request whose folder was deleted meanwhile gets: the 404 it gets once the folder is gone. */
export const folderGoneError = (folderId: string): ApiException => new ApiException('not_found', `No such folder: '${folderId}'`, { field: 'folder_id' });

/** Draws, stores and inserts new codes: one at a time (POST /v1/qr-codes) or a chunk at once (batches: one multi-row
 * insert and one qr.created fan-out for the chunk). */
@Injectable()
export class QrCodeCreationService {
  constructor(
    private readonly em: EntityManager,
    private readonly images: QrCodeImagesService,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** What the symbol encodes: the short URL for dynamic codes (on their custom domain, if any), the payload for static
   * ones; a type encoding a URL of its own (GS1 Digital Link) says it. */
  payloadOf(code: Pick<QrCode, 'kind' | 'shortCode' | 'type' | 'target' | 'domainHostname'>): string {
    const handler = storedType(code.type);
    if (handler.encodedUrl) return handler.encodedUrl(code.target, code.kind, scanOrigin(code, this.config.scanBaseUrl));
    return code.kind === 'dynamic' ? shortUrl(code, this.config.scanBaseUrl)! : handler.payload(code.target);
  }

  /** The QR code object (QrCodeDto), also the `data` of qr.* events: the one place that knows the URLs it needs. */
  present(code: PresentableCode): QrCodeDto {
    return presentQrCode(code, { scanBaseUrl: this.config.scanBaseUrl, imageUrl: (k) => this.images.url(k) });
  }

  /** New pins for what a writer stores (see QrCodeImagesService.pins); unpin them once its codes are committed. */
  pins(): StoragePins {
    return this.images.pins();
  }

  unpin(pins: StoragePins): Promise<void> {
    return this.images.unpin(pins);
  }

  /** The stored logo of the draft's design (fetched, checked, pinned and stored), or null without a logo. */
  logoOf(draft: CodeDraft, pins: StoragePins): Promise<string | null> {
    return this.images.prepareLogo(draft.design, pins);
  }

  /** The new code, not yet inserted: a fresh short code, its SVG drawn, pinned and stored. `id` reserves the id
   * (batches). */
  async render(auth: AuthContext, draft: CodeDraft, logoKey: string | null, pins: StoragePins, id?: string): Promise<QrCode> {
    const prefix = draft.kind === 'dynamic' ? 'qr' : 'sqr';
    const shortCode = newShortCode();
    const now = new Date();
    const code = this.em.create(
      QrCode,
      {
        name: `${draft.kind === 'dynamic' ? 'Campaign' : 'Static'} ${shortCode}`,
        ...draft.values,
        id: id ? `${prefix}_${id.replace(/^s?qr_/, '')}` : newId(prefix),
        organizationId: auth.organizationId,
        environment: auth.environment,
        kind: draft.kind,
        type: draft.type,
        shortCode,
        target: draft.target,
        design: draft.design,
        logoKey,
        createdAt: now,
        updatedAt: now,
      },
      { persist: false },
    );
    const payload = this.payloadOf(code);
    if (draft.namedAfterPayload && draft.values.name === undefined) code.name = payload.slice(0, 255);
    code.imageKey = await this.images.store(payload, draft.design, logoKey, pins);
    return code;
  }

  /**
   * Inserts codes in the caller's transaction (one multi-row insert) and emits one qr.created each (one fan-out).
   * Codes that hit a unique index (a short code taken meanwhile, an identifier claimed concurrently) are left out and
   * returned as `conflicted`, for the caller to retry with a new short code or to refuse; codes whose custom domain was
   * deleted meanwhile (its foreign key refused the row) are left out as `refused`, with the 404 to report.
   */
  async insert(em: EntityManager, auth: AuthContext, codes: QrCode[]): Promise<{ inserted: QrCode[]; conflicted: QrCode[]; refused: { code: QrCode; error: unknown }[] }> {
    let inserted: QrCode[] = [];
    const conflicted: QrCode[] = [];
    const refused: { code: QrCode; error: unknown }[] = [];
    if (codes.length === 0) return { inserted, conflicted, refused };
    await this.images.hold(em, codes.flatMap((c) => [c.imageKey, c.logoKey]));
    try {
      await em.transactional((sp) => sp.insertMany(QrCode, codes));
      inserted = codes;
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException) && !(err instanceof ForeignKeyConstraintViolationException)) throw err;
      // Rare: find the culprits one by one, each in its own savepoint.
      for (const code of codes) {
        try {
          await em.transactional((sp) => sp.insert(QrCode, code));
          inserted.push(code);
        } catch (e) {
          if (e instanceof UniqueConstraintViolationException) conflicted.push(code);
          else if (isFolderGone(e) && code.folderId) refused.push({ code, error: folderGoneError(code.folderId) });
          else if (e instanceof ForeignKeyConstraintViolationException && code.domainId) {
            refused.push({ code, error: codeDomainError(e, { id: code.domainId, hostname: code.domainHostname ?? '' }) });
          } else throw e;
        }
      }
    }
    await this.events.emitMany(em, 'qr.created', inserted.map((c) => ({ owner: auth, data: this.present(c) })));
    return { inserted, conflicted, refused };
  }

  /** One code, from a prepared draft: logo, image, then one transaction that re-checks the plan (reservations
   * included; GS1 codes against their own limit) and the GS1 identifier, inserts and emits qr.created. */
  async createOne(auth: AuthContext, draft: CodeDraft): Promise<QrCode> {
    const which = planCountOf(draft);
    const gs1Key = draft.values.gs1Key ?? null;
    const domainId = draft.values.domainId ?? null;
    if (which) await this.em.transactional((em) => assertRoomFor(em, auth, which));
    const pins = this.pins();
    try {
      return await this.createPinned(auth, draft, pins, which, gs1Key, domainId);
    } finally {
      await this.unpin(pins);
    }
  }

  private async createPinned(auth: AuthContext, draft: CodeDraft, pins: StoragePins, which: ReturnType<typeof planCountOf>, gs1Key: string | null, domainId: string | null): Promise<QrCode> {
    const logoKey = draft.design.logo ? await this.logoOf(draft, pins) : null;
    const host = domainId ? { id: domainId, hostname: draft.values.domainHostname ?? '' } : null;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const code = await this.render(auth, draft, logoKey, pins);
        const ok = await this.em
          .transactional(async (em) => {
            if (which) await assertRoomFor(em, auth, which);
            if (gs1Key) await assertGs1IdentifierFree(em, host, gs1Key, auth.organizationId);
            const { inserted, refused } = await this.insert(em, auth, [code]);
            if (refused.length > 0) throw refused[0].error;
            return inserted.length === 1;
          })
          .catch(async (err: unknown) => {
            await this.images.release([code.imageKey]);
            throw codeDomainError(err, host);
          });
        if (ok) return code;
        await this.images.release([code.imageKey]);
        // A unique index refused the row: the GS1 identifier (claimed concurrently; this throws 409) or the short code.
        if (gs1Key) await assertGs1IdentifierFree(this.em, host, gs1Key, auth.organizationId);
      }
      throw new Error('no free short code after 5 attempts');
    } catch (err) {
      if (logoKey) await this.images.release([logoKey]);
      throw err;
    }
  }

  /** Deletes images of codes that were drawn but not inserted (unless another code shares them). */
  async discard(codes: QrCode[], logoKeys: Iterable<string> = []): Promise<void> {
    await this.images.release([...codes.map((c) => c.imageKey), ...logoKeys]);
  }
}
