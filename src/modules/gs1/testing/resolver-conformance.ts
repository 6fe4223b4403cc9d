/**
 * The checks of GS1's resolver test suite (gs1/GS1DL-resolver-testsuite), re-expressed for Node tests over any
 * transport: the unit tests run them against the pure decision, the e2e tests over HTTP against the scan host.
 * Ids and levels (`fail` / `warn`) follow the suite's; the logic was rewritten from reading it.
 */
export interface ProbeResponse {
  status: number;
  /** header names in lowercase */
  headers: Record<string, string>;
  body?: unknown;
}
export type Probe = (method: 'GET' | 'HEAD' | 'OPTIONS', url: string, headers?: Record<string, string>) => Promise<ProbeResponse>;

export interface CheckResult {
  id: string;
  level: 'fail' | 'warn';
  passed: boolean;
  detail: string;
}

type LinkObject = { href: string; title?: string; type?: string; hreflang?: string[]; context?: unknown };
type Context = Record<string, unknown> & { anchor?: string };

const LINKSET = 'application/linkset+json';
const stripQuery = (url: string) => url.split('?')[0];

/** Drops `linkType=<lt>` (encoded or not) that a redirect passed on, so a location compares with a link's href. */
function stripLinkType(url: string | undefined, linkType: string): string | undefined {
  if (!url) return url;
  for (const lt of [linkType, encodeURIComponent(linkType)]) {
    if (url.includes(`?linkType=${lt}`)) return stripQuery(url);
    const amp = url.indexOf(`&linkType=${lt}`);
    if (amp !== -1) return url.slice(0, amp);
  }
  return url;
}

/** The suite treats links as indistinguishable when type, hreflang and context are all equal. */
function sameAttributes(a: LinkObject, b: LinkObject): boolean {
  return a.type === b.type && JSON.stringify(a.hreflang ?? null) === JSON.stringify(b.hreflang ?? null) && JSON.stringify(a.context ?? null) === JSON.stringify(b.context ?? null);
}

export async function runResolverConformance(probe: Probe, dl: string, validateLinkset: (linkset: unknown) => boolean): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const record = (id: string, level: 'fail' | 'warn', passed: boolean, detail: string) => results.push({ id, level, passed, detail });
  const base = stripQuery(dl);
  const origin = new URL(dl).origin;

  const rd = await probe('GET', `${origin}/.well-known/gs1resolver`, { Accept: 'application/json' });
  const doc = (rd.body ?? {}) as Record<string, unknown>;
  const rdKeys = ['name', 'resolverRoot', 'supportedPrimaryKeys', 'supportedLinkType', 'linkTypeDefaultCanBeLinkset', 'contact'];
  record('rdFile', 'fail', rd.status === 200 && rdKeys.every((k) => k in doc) && !!rd.headers['access-control-allow-origin'], `status ${rd.status}`);

  const options = await probe('OPTIONS', base, { Origin: 'https://ref.gs1.org', 'Access-Control-Request-Method': 'GET' });
  const methods = options.headers['access-control-allow-methods'] ?? '';
  record('corsCheck', 'fail', !!options.headers['access-control-allow-origin'], 'Access-Control-Allow-Origin on OPTIONS');
  record('methodsCheck', 'fail', ['GET', 'HEAD', 'OPTIONS'].every((m) => methods.includes(m)), `Allow-Methods: ${methods}`);

  const plain = await probe('GET', base);
  record('linkOnRedirect', 'warn', (plain.headers.link ?? '').includes('rel="linkset"'), plain.headers.link ?? 'no Link header');

  const broken = await probe('GET', `${base}/foo`);
  record('reportWith400', 'fail', broken.status === 400, `status ${broken.status}`);
  record('noErrorWith200', 'fail', broken.status !== 200, `status ${broken.status}`);

  const slash = await probe('GET', `${base.replace(/\/$/, '')}/`);
  record('trailingSlash', 'warn', slash.status === plain.status && slash.headers.location === plain.headers.location, `status ${slash.status}`);

  const gtin = /\/01\/(\d{14})/.exec(base);
  if (gtin) {
    const walk = await probe('GET', `${base.slice(0, base.indexOf(gtin[0]) + gtin[0].length)}/10/KL8G`);
    record('basicWalkUp', 'fail', walk.status !== 404, `status ${walk.status}`);
  }

  const query = await probe('GET', `${base}?foo=bar`);
  record('qsPassedOn', 'warn', (query.headers.location ?? '').includes('foo=bar'), query.headers.location ?? 'no redirect');

  const byParam = await probe('GET', `${base}?linkType=linkset`);
  record('ltLinksetNoRedirect', 'fail', byParam.status === 200, `status ${byParam.status}`);
  const byAccept = await probe('GET', `${base}?linkType=all`, { Accept: LINKSET });
  record('ltAcceptHeader', 'fail', byAccept.status === 200, `status ${byAccept.status}`);

  const fetched = await probe('GET', base, { Accept: LINKSET });
  const valid = fetched.status === 200 && validateLinkset(fetched.body);
  record('validLinkset', 'fail', valid, `status ${fetched.status}`);
  record('declaredContentType', 'fail', (fetched.headers['content-type'] ?? '').startsWith(LINKSET), fetched.headers['content-type'] ?? 'none');
  record('linksetJsonldCheck', 'warn', /rel="http:\/\/www\.w3\.org\/ns\/json-ld#context"; type="application\/ld\+json"/.test(fetched.headers.link ?? ''), 'JSON-LD context link');
  if (valid) await linksetChecks(probe, base, fetched.body as { linkset: Context[] }, record);

  const missing = await probe('GET', `${base}?linkType=gs1:nosuchlt`);
  record('specificLinkTypeNotFound', 'fail', missing.status === 404, `status ${missing.status}`);
  return results;
}

/** Walks the request's levels from the most specific up; each link type is checked at the first level that has it. */
async function linksetChecks(probe: Probe, base: string, linkset: { linkset: Context[] }, record: (id: string, level: 'fail' | 'warn', passed: boolean, detail: string) => void) {
  const working = JSON.parse(JSON.stringify(linkset).replace(/https:\/\/((ref\.)|(www\.))?gs1\.org\/voc\//gi, 'gs1:')) as { linkset: Context[] };
  const seen = new Set<string>();
  let defaultFound = false;
  for (let current = base; /\/\d{2,4}\/[^/]+$/.test(new URL(current).pathname); current = current.replace(/\/[^/]+\/[^/]+$/, '')) {
    for (const context of working.linkset.filter((c) => c.anchor === current)) {
      for (const [linkType, value] of Object.entries(context)) {
        if (linkType === 'anchor' || linkType === 'itemDescription' || seen.has(linkType)) continue;
        seen.add(linkType);
        const links = value as LinkObject[];
        if (linkType === 'gs1:defaultLink') {
          defaultFound = true;
          const single = links.length === 1 && Object.keys(links[0]).every((k) => k === 'href' || k === 'title');
          record('singleDefaultLink', 'fail', single, `${links.length} default link(s)`);
          const answer = await probe('GET', base);
          record('defaultTarget', 'fail', answer.headers.location === links[0]?.href, `${answer.headers.location} vs ${links[0]?.href}`);
        } else if (links.length === 1 && linkType !== 'gs1:defaultLinkMulti') {
          const answer = await probe('GET', `${base}?linkType=${linkType}`);
          record(`loFor${linkType}`, 'fail', stripLinkType(answer.headers.location, linkType) === stripLinkType(links[0].href, linkType), `${answer.status} ${answer.headers.location}`);
        } else if (links.length > 1) {
          await multipleLinks(probe, base, linkType, links, record);
        }
      }
    }
  }
  record('defaultLinkExists', 'fail', defaultFound, defaultFound ? 'found' : 'no default link');
}

async function multipleLinks(probe: Probe, base: string, linkType: string, links: LinkObject[], record: (id: string, level: 'fail' | 'warn', passed: boolean, detail: string) => void) {
  let done300 = false;
  for (const [i, link] of links.entries()) {
    const twins = links.some((other, j) => j !== i && sameAttributes(link, other));
    if (twins && done300) continue;
    const headers: Record<string, string> = {};
    if (link.type) headers.Accept = link.type;
    if (link.hreflang?.length) headers['Accept-Language'] = link.hreflang[0];
    const lt = linkType === 'gs1:defaultLinkMulti' ? '' : `linkType=${encodeURIComponent(linkType)}`;
    const answer = await probe('GET', `${base}?${lt}`, headers);
    if (twins) {
      done300 = true;
      record(`loFor${linkType}${i}`, 'warn', answer.status === 300, `status ${answer.status} for indistinguishable links`);
    } else {
      record(`loFor${linkType}${i}`, 'fail', stripLinkType(answer.headers.location, linkType) === stripLinkType(link.href, linkType), `${answer.status} ${answer.headers.location}`);
    }
  }
}
