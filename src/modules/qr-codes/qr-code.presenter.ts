import { presentDesign, storedDesign } from '../rendering/design';
import type { QrCodeDto } from './dto/qr-code-response.dto';
import type { QrCode } from './qr-code.entity';
import { LINK_FAMILY } from '../targets/registry';
import { storedType } from './code-kinds';

export interface PresentUrls {
  scanBaseUrl: string;
  imageUrl(key: string): string;
}

/** The origin a code's scan URLs start with: `https://<hostname>` on a custom domain, else SCAN_BASE_URL (no
 * trailing slash). Dynamic GS1 codes build their Digital Link URI on it too. */
export function scanOrigin(code: Pick<QrCode, 'domainHostname'>, scanBaseUrl: string): string {
  return code.domainHostname ? `https://${code.domainHostname}` : scanBaseUrl;
}

export function shortUrl(code: Pick<QrCode, 'kind' | 'shortCode' | 'domainHostname'>, scanBaseUrl: string): string | null {
  return code.kind === 'dynamic' ? `${scanOrigin(code, scanBaseUrl)}/${code.shortCode}` : null;
}

/** What the QR code object is made of: a loaded entity, or a list row read without the ORM (qr-codes.list.ts). */
export type PresentableCode = Pick<
  QrCode,
  | 'id' | 'kind' | 'name' | 'type' | 'shortCode' | 'domainId' | 'domainHostname' | 'target' | 'design' | 'folderId' | 'tags'
  | 'imageKey' | 'logoKey' | 'isActive' | 'scanCount' | 'leadCount' | 'expiresAt' | 'maxScans' | 'expiredUrl' | 'passwordHash'
  | 'environment' | 'status' | 'deletedAt' | 'createdAt' | 'updatedAt'
>;

/** The QR code object (QrCodeDto). Also the `data` of qr.* events. */
export function presentQrCode(code: PresentableCode, urls: PresentUrls): QrCodeDto {
  const handler = storedType(code.type);
  // A type encoding a URL of its own (GS1 Digital Link) reports it as the short URL of its dynamic codes.
  const origin = scanOrigin(code, urls.scanBaseUrl);
  const short = handler.encodedUrl && code.kind === 'dynamic' ? handler.encodedUrl(code.target, code.kind, origin) : shortUrl(code, urls.scanBaseUrl);
  const target: Record<string, unknown> = { type: code.type, ...(handler.present ? handler.present(code.target, code.kind, origin) : code.target) };
  if (!handler.present) {
    delete target.raw;
    for (const field of handler.internalFields ?? []) delete target[field];
    if (code.target.raw !== undefined) target.destination = code.target.raw;
    target.editable = code.kind === 'dynamic' && !handler.pageHolding;
  }
  if (handler.pageHolding) target.destination = short;
  if (handler.summary) target.summary = handler.summary(code.target, { leadCount: code.leadCount });
  const utm = code.kind === 'dynamic' && LINK_FAMILY.has(code.type) ? ((code.target.utm as QrCodeDto['utm']) ?? null) : null;
  const out: QrCodeDto = {
    id: code.id,
    object: 'qr_code',
    kind: code.kind,
    name: code.name,
    type: code.type,
    short_code: code.shortCode,
    short_url: short,
    domain_id: code.domainId,
    target,
    design: presentDesign(storedDesign(code.design), code.logoKey !== null),
    folder_id: code.folderId,
    tags: code.tags,
    // Every code is stored with its image; a row without one (inserted by hand) points at the download.
    image_url: code.imageKey ? urls.imageUrl(code.imageKey) : `/v1/qr-codes/${code.id}/download?format=svg`,
    download_url: `/v1/qr-codes/${code.id}/download`,
    is_active: code.isActive,
    scan_count: code.kind === 'dynamic' ? Number(code.scanCount) : null,
    utm,
    expires_at: code.expiresAt ? code.expiresAt.toISOString() : null,
    max_scans: code.maxScans ?? null,
    expired_url: code.expiredUrl ?? null,
    has_password: code.passwordHash !== null && code.passwordHash !== undefined,
    environment: code.environment,
    created_at: code.createdAt.toISOString(),
    updated_at: code.updatedAt.toISOString(),
  };
  if (code.status !== 'live' && code.deletedAt) out.deleted_at = code.deletedAt.toISOString();
  return out;
}
