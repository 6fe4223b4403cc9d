import { GS1_VOC } from '../link-types';
import { dlPrimaryKeys } from '../syntax-dictionary';

/** GS1's JSON-LD context for linksets, named in the resolver description and in the linkset's `Link` header. */
export const GS1_LINKSET_CONTEXT = 'https://ref.gs1.org/standards/resolver/linkset-context';
export const LINKSET_MEDIA_TYPE = 'application/linkset+json';

export interface ResolverDescriptionInput {
  /** `https://scan.example.com`: where Digital Link paths start */
  resolverRoot: string;
  name: string;
  /** vCard-style contact; GS1's description-file schema names `fn` (formatted name) and `hasAddress` */
  contact: { fn: string; hasAddress?: { streetAddress?: string; locality?: string; region?: string; 'postal-code'?: string } };
}

/** The `/.well-known/gs1resolver` document (GS1-Conformant Resolver standard, resolver description file). */
export function buildResolverDescription(input: ResolverDescriptionInput) {
  return {
    name: input.name,
    resolverRoot: input.resolverRoot.replace(/\/+$/, ''),
    supportedPrimaryKeys: dlPrimaryKeys(),
    supportedLinkType: [{ namespace: GS1_VOC, prefix: 'gs1:' }],
    linkTypeDefaultCanBeLinkset: false,
    jsonLdContextLocation: GS1_LINKSET_CONTEXT,
    contact: input.contact,
  };
}

/** Headers on every resolver answer, errors included: CORS for browsers, and what the answer varies on. */
export const GS1_RESOLVER_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Accept, Accept-Language',
  'Access-Control-Expose-Headers': 'Link, Location, Vary',
  Vary: 'Accept, Accept-Language',
  'Cache-Control': 'no-store',
};
