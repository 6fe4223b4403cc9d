import { LRUCache } from 'lru-cache';
import type { ScanSite } from '../domains/scan-site';
import type { ScanEntry } from './scan-answer';

/** What an own-path answer was decided from besides the request: the code cache's keys and the entries read there. */
export interface OwnPathBasis {
  keys: readonly string[];
  entries: readonly ScanEntry[];
}

/** The request fields an own-path answer may depend on (the site's origin follows from host and site). */
export interface OwnPathMemoRequest {
  method: string;
  url: string;
  host: string | undefined;
  accept: string | undefined;
  acceptLanguage: string | undefined;
  site: ScanSite;
}

interface Variant<V> extends OwnPathBasis {
  method: string;
  host: string | undefined;
  accept: string | undefined;
  acceptLanguage: string | undefined;
  site: ScanSite;
  value: V;
  size: number;
}

/** Longest header strings (url, Host, Accept, Accept-Language) whose answers are kept; longer ones are decided each time. */
const MAX_URL = 1024;
const MAX_HEADER = 512;
/** Header variants kept per URL (a printed code is scanned with few distinct Accept / Accept-Language pairs). */
const VARIANTS_PER_URL = 4;

const fits = (s: string | undefined, max: number): boolean => s === undefined || s.length <= max;

/**
 * A bounded memo of decided own-path answers (the GS1 resolver's), for the scan hot path. An answer depends only on
 * the request fields above and the cached codes of the keys it read, so a kept answer is given again only while the
 * code cache still holds the very same entry objects under those keys: the cache replaces an entry on every
 * invalidation (edit, pause, delete) and drops it at its TTL, so a memo never outlives a change. Per URL a few header
 * variants, compared with `===`; URLs in an LRU bounded by count and by an estimate of bytes. Nothing about the
 * visitor is kept beyond these header strings (no address).
 */
export class OwnPathMemo<V> {
  private readonly byUrl: LRUCache<string, Variant<V>[]>;

  constructor(
    /** the code cache's synchronous read (ScanCodeCache.peek) */
    private readonly peek: (key: string) => ScanEntry | undefined,
    opts: { maxUrls?: number; maxBytes?: number } = {},
  ) {
    this.byUrl = new LRUCache({
      max: opts.maxUrls ?? 2_000,
      maxSize: opts.maxBytes ?? 16 * 1024 * 1024,
      sizeCalculation: (variants) => variants.reduce((n, v) => n + v.size, 1),
    });
  }

  /** The kept answer of this request, when its code entries are still the ones it was decided from. */
  get(req: OwnPathMemoRequest): V | undefined {
    const variants = this.byUrl.get(req.url);
    if (!variants) return undefined;
    for (const v of variants) {
      if (v.method !== req.method || v.host !== req.host || v.accept !== req.accept || v.acceptLanguage !== req.acceptLanguage || v.site !== req.site) continue;
      for (let i = 0; i < v.keys.length; i++) if (this.peek(v.keys[i]) !== v.entries[i]) return undefined;
      return v.value;
    }
    return undefined;
  }

  /** Keeps an answer decided from `basis` (`size`: an estimate of its bytes); a request with an overlong field is not kept. */
  set(req: OwnPathMemoRequest, basis: OwnPathBasis, value: V, size: number): void {
    if (!fits(req.url, MAX_URL) || !fits(req.host, MAX_HEADER) || !fits(req.accept, MAX_HEADER) || !fits(req.acceptLanguage, MAX_HEADER)) return;
    const variant: Variant<V> = {
      method: req.method,
      host: req.host,
      accept: req.accept,
      acceptLanguage: req.acceptLanguage,
      site: req.site,
      keys: basis.keys,
      entries: basis.entries,
      value,
      size: size + req.url.length + (req.accept?.length ?? 0) + (req.acceptLanguage?.length ?? 0) + 256,
    };
    const same = (v: Variant<V>) =>
      v.method === req.method && v.host === req.host && v.accept === req.accept && v.acceptLanguage === req.acceptLanguage && v.site === req.site;
    const kept = (this.byUrl.get(req.url) ?? []).filter((v) => !same(v));
    // The newest first; the oldest variant goes when the URL has too many.
    this.byUrl.set(req.url, [variant, ...kept].slice(0, VARIANTS_PER_URL));
  }
}
