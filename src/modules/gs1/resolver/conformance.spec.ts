import Ajv from 'ajv';
import linksetSchema from '../data/gs1-linkset-schema.json';
import { parseDigitalLink } from '../digital-link-parser';
import { Gs1Error } from '../gs1.error';
import { runResolverConformance, type Probe, type ProbeResponse } from '../testing/resolver-conformance';
import { decideGs1Answer } from './decide';
import type { Gs1ResolverRecord } from './linkset';
import { buildResolverDescription, GS1_RESOLVER_HEADERS } from './well-known';

const ORIGIN = 'https://scan.example.com';
const G = '/01/09506000134352';
const voc = (name: string) => `https://gs1.org/voc/${name}`;
const records: Gs1ResolverRecord[] = [
  {
    path: G,
    name: 'Crew neck T-shirt',
    destination: 'https://brand.example/',
    links: [
      { linkType: voc('pip'), href: 'https://brand.example/en/pip', hreflang: ['en'] },
      { linkType: voc('pip'), href: 'https://brand.example/fr/pip', hreflang: ['fr'] },
      { linkType: voc('certificationInfo'), href: 'https://cert.example/1', title: 'Certificate' },
      { linkType: voc('certificationInfo'), href: 'https://cert.example/2', title: 'Certificate' },
      { linkType: voc('instructions'), href: 'https://brand.example/recycling', title: 'Recycling' },
    ],
    overrides: [{ path: `${G}/21/1234`, href: 'https://brand.example/serial/1234' }],
  },
  { path: `${G}/21/12345`, name: 'Serial 12345', destination: 'https://brand.example/serial/12345', links: [{ linkType: voc('dpp'), href: 'https://dpp.example/12345' }], overrides: [] },
];

const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The scan host, reduced to what docs/gs1.md tells the HTTP layer to do. */
const probe: Probe = async (method, url, headers = {}): Promise<ProbeResponse> => {
  const { pathname, search } = new URL(url);
  if (pathname === '/.well-known/gs1resolver') {
    return { status: 200, headers: lower({ ...GS1_RESOLVER_HEADERS, 'Content-Type': 'application/json' }), body: buildResolverDescription({ resolverRoot: ORIGIN, name: 'Scanlink', contact: { fn: 'Ops' } }) };
  }
  try {
    const dl = parseDigitalLink(pathname, search.slice(1));
    const h = lower(headers);
    const answer = decideGs1Answer(records, { method, dl, origin: ORIGIN, accept: h.accept, acceptLanguage: h['accept-language'] });
    const out = lower(answer.headers);
    if (answer.status === 307) out.location = answer.location;
    return { status: answer.status, headers: out, body: 'body' in answer && method !== 'HEAD' ? answer.body : undefined };
  } catch (e) {
    if (e instanceof Gs1Error) return { status: 400, headers: lower(GS1_RESOLVER_HEADERS) };
    throw e;
  }
};

describe("GS1's resolver test suite, run against the resolver decision", () => {
  const validate = new Ajv({ strict: false }).compile(linksetSchema);

  it.each([`${ORIGIN}${G}`, `${ORIGIN}${G}/21/12345`, `${ORIGIN}${G}/21/1234`, `${ORIGIN}${G}/21/999`])('passes every check for %s', async (dl) => {
    const results = await runResolverConformance(probe, dl, (body) => validate(body) as boolean);
    expect(results.filter((r) => !r.passed)).toEqual([]);
    const ids = results.map((r) => r.id);
    for (const id of ['rdFile', 'corsCheck', 'methodsCheck', 'reportWith400', 'basicWalkUp', 'ltLinksetNoRedirect', 'ltAcceptHeader', 'validLinkset', 'declaredContentType', 'singleDefaultLink', 'defaultTarget', 'defaultLinkExists', 'specificLinkTypeNotFound']) {
      expect(ids).toContain(id);
    }
    expect(ids).toEqual(expect.arrayContaining(['loForgs1:instructions', 'loForgs1:pip0', 'loForgs1:pip1', 'loForgs1:certificationInfo0']));
  });
  it('checks the most specific level first: a deeper code\'s own link types too', async () => {
    const results = await runResolverConformance(probe, `${ORIGIN}${G}/21/12345`, (body) => validate(body) as boolean);
    expect(results.find((r) => r.id === 'loForgs1:dpp')).toMatchObject({ passed: true });
  });
  it('notices a resolver that breaks the rules (the checks are not vacuous)', async () => {
    const lying: Probe = async (method, url, headers) => {
      const answer = await probe(method, url, headers);
      return url.endsWith('/foo') ? { ...answer, status: 200 } : { ...answer, headers: { ...answer.headers, 'content-type': 'application/json' } };
    };
    const failed = (await runResolverConformance(lying, `${ORIGIN}${G}`, (body) => validate(body) as boolean)).filter((r) => !r.passed).map((r) => r.id);
    expect(failed).toEqual(expect.arrayContaining(['reportWith400', 'noErrorWith200', 'declaredContentType']));
  });
});
