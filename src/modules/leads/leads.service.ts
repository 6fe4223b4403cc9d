import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { Environment } from '../../common/auth/api-key-format';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { newId } from '../../common/ids';
import { REDIS } from '../../common/redis/redis.provider';
import { sharedScanCount } from '../../common/redis/scan-number-key';
import { EventsService } from '../events/events.service';
import { countLead, findByShortCode } from '../qr-codes/qr-codes.repository';
import { takesLeads } from '../targets/registry';
import type { ScanContext } from '../scan/scan-contract';
import type { LeadValue } from './lead-validation';
import { clientAddressKey } from '../../common/http/client-address';
import { holdsScanPass, isFollowUpExpired, isUnlocked } from '../scan/unlock-cookie';

/** The allowlisted scan facts a lead keeps (qr.scanned's allowlist minus referrer and language). */
export type LeadScanContext = Pick<ScanContext, 'country' | 'city' | 'device' | 'os' | 'browser'>;

/** A code that may accept posts, as read from the database (form posts are not the hot path). */
export interface FormCode {
  id: string;
  organizationId: string;
  /** the code's environment, which its lead.captured events take */
  environment: Environment;
  shortCode: string;
  target: Record<string, unknown>;
}

/** `expired`: past its link-control expiry or scan limit; `locked`: password-protected and the browser is not unlocked. */
export type FormLookup = { found: FormCode } | { status: 404 | 410 | 'expired' | 'locked' };

/** `lead.captured` data and, without `object`, what the `leads` row holds. */
export interface LeadData {
  id: string;
  object: 'lead';
  qr_code_id: string;
  email?: LeadValue;
  name?: LeadValue;
  phone?: LeadValue;
  fields: Record<string, LeadValue>;
  scan_context: LeadScanContext;
  created_at: string;
}

const RATE_WINDOW_SECONDS = 3600;
/** Copied to the top level of lead.captured when the form has a field of that name (typically email, name, phone: docs/hosted-pages.md). */
const CONTACT_FIELDS = ['email', 'name', 'phone'] as const;

@Injectable()
export class LeadsService {
  constructor(
    private readonly em: EntityManager,
    private readonly events: EventsService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Only live, active, dynamic codes of a type that takes leads (form) take posts; unknown, trashed or other codes are 404, inactive or paused 410.
   * `domainId`: the site the post came in on (null = the default scan host). */
  async findForm(domainId: string | null, shortCode: string, cookie?: string): Promise<FormLookup> {
    const row = await findByShortCode(this.em.fork(), domainId, shortCode);
    if (!row || row.status === 'trashed' || row.kind !== 'dynamic' || !takesLeads(row.type)) return { status: 404 };
    if (row.status !== 'live' || !row.isActive) return { status: 410 };
    // Link controls hold for posts too: an expired form takes none, a protected one only from an unlocked browser. A
    // used-up scan limit still takes the post of a browser holding the scan pass its page view gave it (the last
    // allowed scan's form works to its end).
    // The same rule as the scan host's downloads and file bytes (isFollowUpExpired), with the shared scan total.
    const now = Date.now();
    const scans = row.maxScans !== null ? await sharedScanCount(this.redis, row.id, row.scanCount) : 0;
    if (isFollowUpExpired(row, { now, scansSoFar: () => scans, holdsScanPass: () => holdsScanPass(this.config.appSecret, cookie, shortCode, row.id, now) })) {
      return { status: 'expired' };
    }
    if (row.passwordTag && !isUnlocked(this.config.appSecret, cookie, shortCode, row.id, row.passwordTag, now)) return { status: 'locked' };
    return { found: { id: row.id, organizationId: row.organizationId, environment: row.environment, shortCode, target: row.target } };
  }

  /**
   * Counts one post from this client in a fixed one-hour window. The key is HMAC-SHA256(APP_SECRET, ip): the address
   * itself never reaches Redis (nor the database, a queue or a log). `EXPIRE … NX` in the same MULTI as the INCR, so
   * a key can never be left without an expiry.
   */
  async hit(ip: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    const key = `scanlink:lead-rate:${clientAddressKey(this.config.appSecret, ip)}`;
    const res = await this.redis.multi().incr(key).expire(key, RATE_WINDOW_SECONDS, 'NX').ttl(key).exec();
    const count = Number(res?.[0]?.[1] ?? 0);
    const ttl = Number(res?.[2]?.[1] ?? RATE_WINDOW_SECONDS);
    return { allowed: count <= this.config.leadRateLimitPerHour, retryAfterSeconds: ttl > 0 ? ttl : RATE_WINDOW_SECONDS };
  }

  /**
   * In one transaction: count the lead on the code (only while it is still live and active), store it, and write
   * `lead.captured` to the outbox. Returns null when the code stopped taking posts since it was looked up.
   *
   * The transaction is the connection's, bound to a fork of the EntityManager, rather than `em.transactional`: every
   * statement here is SQL through `execute`, and MikroORM's transactional() enters an AsyncLocalStorage, which would
   * turn on Node's async hooks for the rest of the scan process's life (docs/scan-host.md "Async hooks stay off").
   */
  async capture(code: FormCode, fields: Record<string, LeadValue>, scanContext: LeadScanContext): Promise<LeadData | null> {
    const createdAt = new Date();
    const contact: Partial<Record<(typeof CONTACT_FIELDS)[number], LeadValue>> = {};
    for (const name of CONTACT_FIELDS) if (name in fields) contact[name] = fields[name];
    const lead: LeadData = {
      id: newId('lead'),
      object: 'lead',
      qr_code_id: code.id,
      ...contact,
      fields,
      scan_context: scanContext,
      created_at: createdAt.toISOString(),
    };
    const em = this.em.fork();
    return em.getConnection().transactional(async (trx) => {
      em.setTransactionContext(trx);
      if (!(await countLead(em, code.id))) return null;
      await em.execute(
        `insert into leads (id, organization_id, qr_code_id, fields, scan_context, created_at) values (?, ?, ?, ?::jsonb, ?::jsonb, ?)`,
        [lead.id, code.organizationId, code.id, JSON.stringify(fields), JSON.stringify(scanContext), createdAt],
      );
      await this.events.emit(em, code, 'lead.captured', lead);
      return lead;
    });
  }
}
