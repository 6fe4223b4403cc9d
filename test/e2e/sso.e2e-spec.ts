import { randomBase62 } from '../../src/common/ids';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';
import { addMember } from '../setup/members';
import { startOidcProvider, TestBrowser, TestProvider } from '../setup/oidc';

const email = (who: string) => `${who}-${randomBase62(8).toLowerCase()}@example.com`;
/** The API's public origin (API_BASE_URL) as the provider and the browser see it; the test browser maps it to the
 * test's api. */
const PUBLIC_ORIGIN = 'http://scanlink.test';
const REDIRECT_URI = `${PUBLIC_ORIGIN}/v1/session/sso/callback`;
const CLIENT = { clientId: 'scanlink', clientSecret: 'a-client-secret-for-tests' };

/** Single sign-on through OpenID Connect (docs/members.md), against a real provider (oidc-provider) on 127.0.0.1. */
describe('single sign-on (OpenID Connect)', () => {
  let api: TestApp;
  let idp: TestProvider;
  let foreign: TestProvider;
  let org: TestOrg;
  const member = email('ana');
  const unverified = email('uma');
  const stranger = email('stan');

  beforeAll(async () => {
    const accounts = {
      ana: { email: member.toUpperCase(), email_verified: true },
      uma: { email: unverified, email_verified: false },
      stan: { email: stranger, email_verified: true },
    };
    idp = await startOidcProvider({ ...CLIENT, redirectUri: REDIRECT_URI, accounts });
    // Another issuer, with the same client registered: its codes and tokens must never sign anyone in.
    foreign = await startOidcProvider({ ...CLIENT, redirectUri: REDIRECT_URI, accounts });
    api = await startApi({
      API_BASE_URL: `${PUBLIC_ORIGIN}/v1`,
      OIDC_ISSUER_URL: idp.issuer,
      OIDC_CLIENT_ID: CLIENT.clientId,
      OIDC_CLIENT_SECRET: CLIENT.clientSecret,
    });
    org = await createOrg(api, { name: 'SSO Co' });
    await addMember(api, org.organizationId, member, 'editor', null);
    await addMember(api, org.organizationId, unverified, 'viewer', null);
  });
  afterAll(async () => {
    await api?.close();
    await idp?.close();
    await foreign?.close();
  });

  const browser = () => new TestBrowser((url) => url.replace(PUBLIC_ORIGIN, api.origin));
  const isCallback = (url: string) => url.startsWith(REDIRECT_URI);

  /** Starts single sign-on in `b` and signs in at the provider as `account`; answers the callback URL the provider
   * sends the browser to (not yet followed). */
  async function throughProvider(b: TestBrowser, account: string, returnTo?: string, via?: TestProvider): Promise<string> {
    const start = await b.request(`${api.origin}/v1/session/sso${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
    expect(start.status).toBe(302);
    let authorize = start.location!;
    if (via) authorize = authorize.replace(idp.issuer, via.issuer);
    return b.signInAtProvider(authorize, account, isCallback);
  }

  it('GET /v1/session/providers says single sign-on is on, and where it starts', async () => {
    const res = await http(api.origin, 'GET', '/v1/session/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'sign_in_providers', password: true, email_link: true, sso: true, sso_url: '/v1/session/sso' });
  });

  it('signs a member in: code + PKCE at the provider, then the refresh cookie and the dashboard', async () => {
    const b = browser();
    const start = await b.request(`${api.origin}/v1/session/sso?return_to=${encodeURIComponent('/app/codes?folder=fld_1')}`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.location!);
    expect(authorize.origin).toBe(idp.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: CLIENT.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(authorize.searchParams.get(p)).toMatch(/^[\w-]{40,}$/);
    const flowCookie = start.setCookies.find((c) => c.startsWith('scanlink_sso='))!;
    expect(flowCookie).toMatch(/HttpOnly/);
    expect(flowCookie).toMatch(/SameSite=Lax/);
    expect(flowCookie).toMatch(/Path=\/v1\/session\/sso/);
    // The flow cookie is sealed: neither the state nor the PKCE verifier can be read from it.
    expect(flowCookie).not.toContain(authorize.searchParams.get('state'));

    const callback = await b.signInAtProvider(start.location!, 'ana', isCallback);
    expect(new URL(callback).searchParams.get('iss')).toBe(idp.issuer);
    const done = await b.request(callback);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/codes?folder=fld_1`);
    const refresh = done.setCookies.find((c) => c.startsWith('scanlink_refresh='))!;
    expect(refresh).toMatch(/HttpOnly/);
    expect(refresh).toMatch(/SameSite=Strict/);
    expect(b.cookie('scanlink_sso')).toBeUndefined();

    // The dashboard takes its session token from the refresh cookie.
    const session = await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: refresh.split(';')[0] } });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ object: 'session', organization_id: org.organizationId, role: 'editor', user: { email: member } });
    const codes = await http(api.origin, 'GET', '/v1/qr-codes', { key: session.body.token });
    expect(codes.status).toBe(200);

    const audit = await http(api.origin, 'GET', `/v1/audit-log?action=session.created&actor_id=${session.body.user.id}`, { key: org.apiKey });
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ actor: { type: 'user', id: session.body.user.id, email: member }, changes: { method: [null, 'sso'] } });

    // The callback works once: replayed (same code, flow cookie gone), it signs no one in.
    const replay = await b.request(callback);
    expect(replay.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_expired`);
    expect(replay.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);
  });

  it('refuses an e-mail address no member has', async () => {
    const b = browser();
    const done = await b.request(await throughProvider(b, 'stan'));
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_no_account`);
    expect(done.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);
  });

  it('refuses an address the provider has not verified, even a member’s', async () => {
    const b = browser();
    const done = await b.request(await throughProvider(b, 'uma'));
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_email_unverified`);
    expect(done.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);
  });

  it('refuses a callback whose state does not match the flow this browser started', async () => {
    const b = browser();
    const callback = new URL(await throughProvider(b, 'ana'));
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const done = await b.request(callback.href);
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_failed`);
    expect(done.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);

    // Someone else's callback (login CSRF: another browser, no flow cookie) signs no one in either.
    const other = browser();
    const genuine = await throughProvider(other, 'ana');
    const elsewhere = await browser().request(genuine);
    expect(elsewhere.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_expired`);
    expect(elsewhere.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);
  });

  it('refuses a code issued by another issuer (mix-up), with the right state', async () => {
    const b = browser();
    const callback = await throughProvider(b, 'ana', undefined, foreign);
    expect(new URL(callback).searchParams.get('iss')).toBe(foreign.issuer);
    const done = await b.request(callback);
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_failed`);
    expect(done.setCookies.some((c) => c.startsWith('scanlink_refresh='))).toBe(false);
    // Without the `iss` parameter, the foreign code goes to the configured issuer, which does not know it.
    const b2 = browser();
    const stripped = new URL(await throughProvider(b2, 'ana', undefined, foreign));
    stripped.searchParams.delete('iss');
    const again = await b2.request(stripped.href);
    expect(again.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_failed`);
  });

  it('a cancelled sign-in at the provider comes back as sso_denied', async () => {
    const b = browser();
    const start = await b.request(`${api.origin}/v1/session/sso`);
    const back = new URL(REDIRECT_URI);
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('state', new URL(start.location!).searchParams.get('state')!);
    const done = await b.request(back.href);
    expect(done.location).toBe(`${PUBLIC_ORIGIN}/app/sign-in?sso_error=sso_denied`);
  });

  it('return_to must be a dashboard path: another origin is a 400 naming it', async () => {
    for (const bad of ['https://evil.example/app/', '//evil.example/app/', '/app/../v1/tokens', '/\\evil.example', '/docs']) {
      const res = await http(api.origin, 'GET', `/v1/session/sso?return_to=${encodeURIComponent(bad)}`);
      expect([bad, res.status, res.body.error?.code, res.body.error?.field]).toEqual([bad, 400, 'invalid_request', 'return_to']);
    }
  });

  it('without the OIDC_* settings: providers say sso false, and the start URL is 404', async () => {
    const plain = await startApi();
    try {
      const res = await http(plain.origin, 'GET', '/v1/session/providers');
      expect(res.body).toEqual({ object: 'sign_in_providers', password: true, email_link: true, sso: false, sso_url: null });
      const start = await http(plain.origin, 'GET', '/v1/session/sso');
      expect(start.status).toBe(404);
      expect(start.body.error.code).toBe('not_found');
    } finally {
      await plain.close();
    }
  });
});
