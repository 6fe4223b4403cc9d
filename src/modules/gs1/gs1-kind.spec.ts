import { ApiException } from '../../common/errors/api.exception';
import type { CreateGs1QrCodeDto } from './gs1.dto';
import { gs1Kind, prepareGs1 } from './gs1-kind';
import { ownPathsOf } from '../qr-codes/code-kinds';

const body = (extra: Record<string, unknown> = {}) =>
  ({ type: 'gs1', primary_key: { ai: '01', value: '9506000134352' }, destination: 'https://brand.example/p', ...extra }) as CreateGs1QrCodeDto;
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiException) return { code: e.code, field: e.extras.field, gs1_code: e.extras.gs1_code };
    throw e;
  }
  throw new Error('accepted');
};

describe('gs1 kind of code', () => {
  it('stores the canonical identifier and reports the Digital Link URI, GTIN padded to 14 digits', () => {
    const draft = prepareGs1(body({ qualifiers: [{ ai: '10', value: 'A/B' }], overrides: [{ path: '10/A%2FB/21/9', href: 'https://brand.example/9' }] }));
    expect(draft).toMatchObject({ kind: 'dynamic', gs1Key: '/01/09506000134352/10/A%2FB' });
    const target = draft.target;
    expect(gs1Kind.encodedUrl!(target, 'dynamic', 'https://scan.example.com/x')).toBe('https://scan.example.com/01/09506000134352/10/A%2FB');
    expect(gs1Kind.present!(target, 'dynamic', 'https://scan.example.com')).toMatchObject({
      qualifiers: [{ ai: '10', value: 'A/B' }],
      overrides: [{ path: '10/A%2FB/21/9', href: 'https://brand.example/9' }],
      editable: false,
    });
  });

  it('encodes https://<domain>/… for static codes, with no identifier to keep unique', () => {
    const draft = prepareGs1({ type: 'gs1', mode: 'static', domain: 'Bücher.example', primary_key: { ai: '414', value: '9520123456788' } } as CreateGs1QrCodeDto);
    expect(draft.gs1Key).toBeNull();
    expect(gs1Kind.payload(draft.target)).toBe('https://xn--bcher-kva.example/414/9520123456788');
  });

  it('turns GS1 rule refusals into gs1_invalid and URL refusals into invalid_request', () => {
    expect(refusal(() => prepareGs1(body({ primary_key: { ai: '01', value: '09520123456789' } })))).toEqual({ code: 'gs1_invalid', field: 'primary_key.value', gs1_code: 'GS1_CHECK_DIGIT' });
    expect(refusal(() => prepareGs1(body({ links: [{ linkType: 'gs1:pip', href: 'javascript:alert(1)' }] })))).toMatchObject({ code: 'invalid_request', field: 'links[0].href' });
    expect(refusal(() => prepareGs1(body({ attributes: { '17': 5 } })))).toMatchObject({ code: 'invalid_request', field: 'attributes.17' });
  });

  it('claims Digital Link paths and the resolver description, never short codes or other paths', () => {
    for (const url of ['/01/09506000134352', '/01/09506000134352/foo', '/414/9520123456788?linkType=all', '/.well-known/gs1resolver']) expect(ownPathsOf(url)).toBe(gs1Kind.scan.ownPaths);
    for (const url of ['/aB3dE9x', '/01', '/images/x.svg', '/health', '/.well-known/scanlink/tls-allowed?domain=x']) expect(ownPathsOf(url)).toBeNull();
  });

  it('patches a stored GS1 target (null when no GS1 field is given) and refuses a stored target that is not one', () => {
    const stored: Record<string, unknown> = { ...prepareGs1(body()).target };
    expect(gs1Kind.patch(stored, {})).toBeNull();
    expect(gs1Kind.patch(stored, { destination: 'https://brand.example/new' })).toMatchObject({ default_link: 'https://brand.example/new', path: '/01/09506000134352' });
    expect(() => gs1Kind.patch({ destination: 'https://example.com/' }, { destination: 'https://brand.example/new' })).toThrow('lacks the identifier');
  });
});
