import { OwnPathMemo, type OwnPathMemoRequest } from './own-path-memo';
import type { ScanEntry } from './scan-answer';

const entry = (): ScanEntry => ({ code: null, location: null });
const request = (over: Partial<OwnPathMemoRequest> = {}): OwnPathMemoRequest => ({
  method: 'GET',
  url: '/01/09506000134352/10/LOT42',
  host: 'scan.example.com',
  accept: '*/*',
  acceptLanguage: 'en',
  site: null,
  ...over,
});

describe('OwnPathMemo', () => {
  let cache: Map<string, ScanEntry>;
  let memo: OwnPathMemo<string>;
  const keys = [':/01/09506000134352/10/LOT42', ':/01/09506000134352'];
  beforeEach(() => {
    cache = new Map(keys.map((k) => [k, entry()]));
    memo = new OwnPathMemo((k) => cache.get(k));
  });
  const basis = () => ({ keys, entries: keys.map((k) => cache.get(k)!) });

  it('gives a kept answer again for the same request while its entries are the same objects', () => {
    memo.set(request(), basis(), 'answer', 10);
    // Fresh strings with the same text, as every request brings.
    expect(memo.get(request({ url: ['/01/09506000134352', '/10/LOT42'].join(''), accept: ['*/', '*'].join('') }))).toBe('answer');
  });

  it('misses once an entry was replaced (an invalidation refilled it) or dropped', () => {
    memo.set(request(), basis(), 'answer', 10);
    cache.set(keys[1], entry());
    expect(memo.get(request())).toBeUndefined();
    memo.set(request(), basis(), 'again', 10);
    expect(memo.get(request())).toBe('again');
    cache.delete(keys[0]);
    expect(memo.get(request())).toBeUndefined();
  });

  it('misses for another method, host, site, Accept or Accept-Language', () => {
    memo.set(request(), basis(), 'answer', 10);
    for (const other of [
      { method: 'HEAD' },
      { host: 'scan.example.com:8080' },
      { site: 'dom_0123456789abcdef' },
      { accept: 'application/linkset+json' },
      { accept: undefined },
      { acceptLanguage: 'fr' },
    ]) {
      expect(memo.get(request(other))).toBeUndefined();
    }
  });

  it('keeps a few header variants per URL, newest first, and replaces a variant decided again', () => {
    for (const lang of ['a', 'b', 'c', 'd', 'e']) memo.set(request({ acceptLanguage: lang }), basis(), lang, 10);
    expect(memo.get(request({ acceptLanguage: 'a' }))).toBeUndefined();
    expect(['b', 'c', 'd', 'e'].map((lang) => memo.get(request({ acceptLanguage: lang })))).toEqual(['b', 'c', 'd', 'e']);
    memo.set(request({ acceptLanguage: 'e' }), basis(), 'e2', 10);
    expect(memo.get(request({ acceptLanguage: 'e' }))).toBe('e2');
  });

  it('is bounded: URLs by count and bytes, and overlong header strings are never kept', () => {
    const small = new OwnPathMemo<string>((k) => cache.get(k), { maxUrls: 3, maxBytes: 1_000_000 });
    for (let i = 0; i < 5; i++) small.set(request({ url: `/01/${i}` }), basis(), String(i), 10);
    expect([0, 1, 2, 3, 4].map((i) => small.get(request({ url: `/01/${i}` })))).toEqual([undefined, undefined, '2', '3', '4']);
    const bytes = new OwnPathMemo<string>((k) => cache.get(k), { maxUrls: 100, maxBytes: 2_000 });
    for (let i = 0; i < 5; i++) bytes.set(request({ url: `/01/${i}` }), basis(), String(i), 500);
    expect(bytes.get(request({ url: '/01/0' }))).toBeUndefined();
    expect(bytes.get(request({ url: '/01/4' }))).toBe('4');
    memo.set(request({ acceptLanguage: 'x'.repeat(513) }), basis(), 'long', 10);
    expect(memo.get(request({ acceptLanguage: 'x'.repeat(513) }))).toBeUndefined();
    memo.set(request({ url: `/01/${'1'.repeat(1100)}` }), basis(), 'long', 10);
    expect(memo.get(request({ url: `/01/${'1'.repeat(1100)}` }))).toBeUndefined();
  });
});
