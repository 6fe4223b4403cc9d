import { pooledId } from './pooled-ids';
import { encodeScanBatch, SCAN_BATCH_MAX, type ScanRecord } from './scan-contract';
import { ScanEnricher } from './scan-enricher';
import { VisitorHasher } from './visitor-salt';

/**
 * What the hot path keeps of a counted scan until it is encoded: RAW_WIDTH values per scan on a flat array (no object
 * per scan), in the order of ScanBuffer.addScan's parameters, which `encode` reads by index. The address and user agent
 * are there for the visitor hash and the user agent's facts only: the encoder drops them, and nothing here is written
 * anywhere.
 */
export const RAW_WIDTH = 12;

/** A day's salt (UTC day YYYY-MM-DD → salt bytes), as VisitorSalts loads them. */
export type DaySalts = [day: string, salt: Uint8Array][];

export interface EncodedScans {
  /** Stream entries (encodeScanBatch), each with the scans it carries. */
  entries: [data: string, scans: number][];
  /** Scans kept (bots are dropped here). */
  counted: number;
  /** Some scan's UTC day had no salt (it counts as a new visitor): the salts should be loaded again. */
  saltMissing: boolean;
}

/**
 * Turns the hot path's raw scans into stream entries: the user agent's facts (memoized), bots dropped, the referrer's
 * host, the first language, the visitor (HMAC under the day's salt), a scan id and the ISO time, then the compact
 * encoding. Pure and synchronous: the scan process runs it on a thread of its own (scan-encoder.thread.ts), or inline
 * when that thread is unavailable, with the same result.
 */
export class ScanEncoder {
  private readonly enricher = new ScanEnricher({ geolocate: false });
  private hashers = new Map<string, VisitorHasher>();
  private lastMs = -1;
  private lastIso = '';

  setSalts(salts: DaySalts): void {
    const next = new Map<string, VisitorHasher>();
    for (const [day, salt] of salts) next.set(day, this.hashers.get(day) ?? new VisitorHasher(Buffer.from(salt)));
    this.hashers = next;
  }

  encode(raw: readonly unknown[]): EncodedScans {
    const records: ScanRecord[] = [];
    let saltMissing = false;
    for (let i = 0; i + RAW_WIDTH <= raw.length; i += RAW_WIDTH) {
      const qrCodeId = raw[i + 1] as string;
      const ip = raw[i + 3] as string | undefined;
      const userAgent = raw[i + 4] as string | undefined;
      const ua = this.enricher.userAgent(userAgent);
      if (ua.bot) continue;
      const scannedAt = this.iso(raw[i] as number);
      const record = this.enricher.record(
        pooledId('scan'),
        { id: qrCodeId, organizationId: raw[i + 2] as string },
        ua,
        raw[i + 5] as string | undefined,
        raw[i + 6] as string | undefined,
        { ruleId: raw[i + 9] as string | null | undefined, arm: raw[i + 10] as number | null, expired: raw[i + 11] === true },
        { country: raw[i + 7] as string | null, city: raw[i + 8] as string | null },
        scannedAt,
      );
      const hasher = this.hashers.get(scannedAt.slice(0, 10));
      if (hasher) record.visitor = hasher.hash(qrCodeId, ip ?? '', userAgent ?? '');
      else saltMissing = true;
      records.push(record);
    }
    const entries: [string, number][] = [];
    for (let i = 0; i < records.length; i += SCAN_BATCH_MAX) {
      const chunk = records.slice(i, i + SCAN_BATCH_MAX);
      entries.push([encodeScanBatch(chunk), chunk.length]);
    }
    return { entries, counted: records.length, saltMissing };
  }

  /** `new Date(ms).toISOString()`, made once per millisecond (a busy host counts many scans per millisecond). */
  private iso(ms: number): string {
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }
}
