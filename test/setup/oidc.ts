import { generateKeyPairSync } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified: boolean;
}

export interface TestProvider {
  issuer: string;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package) in this process on 127.0.0.1, with its development
 * sign-in pages: the login form takes any account id (here: a key of `accounts`) and no password.
 */
export async function startOidcProvider(opts: { clientId: string; clientSecret: string; redirectUri: string; accounts: Record<string, TestAccount> }): Promise<TestProvider> {
  // The provider needs its issuer URL, hence the port, before it can answer: it is plugged in once listening.
  const route: { handler?: (req: never, res: never) => void } = {};
  const server: Server = createServer((req, res) => (route.handler ? route.handler(req as never, res as never) : res.end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  // Its one remaining start-up warning (development sign-in pages are on) is expected here.
  const warn = console.warn;
  console.warn = () => undefined;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['a-test-only-cookie-signing-key'] },
    pkce: { required: () => true },
    jwks: { keys: [{ ...signingKey, use: 'sig', kid: 'test' }] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => {
      const account = opts.accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.email_verified }) };
    },
  });
  console.warn = warn;
  // Quiet: a refused token request is part of some tests.
  provider.on('server_error', () => undefined);
  route.handler = provider.callback() as never;
  return { issuer, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export interface Hop {
  url: string;
  status: number;
  location?: string;
  setCookies: string[];
}

/** A browser's cookie jar and redirect-following, enough for the provider's sign-in pages and Scanlink's callback.
 * Both servers run on 127.0.0.1: as in a browser, cookies are shared across ports. `rewrite` maps the API's public
 * origin (API_BASE_URL) to where the test's api listens. */
export class TestBrowser {
  private readonly jar = new Map<string, { value: string; path: string }>();

  constructor(private readonly rewrite: (url: string) => string = (u) => u) {}

  cookie(name: string): string | undefined {
    for (const [key, c] of this.jar) if (key.startsWith(`${name}\u0000`)) return c.value;
    return undefined;
  }

  /** One request; stores the cookies it sets. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Hop & { body: string }> {
    const target = new URL(this.rewrite(url));
    const cookies = [...this.jar.entries()].filter(([, c]) => target.pathname.startsWith(c.path)).map(([key, c]) => `${key.split('\u0000')[0]}=${c.value}`);
    const headers: Record<string, string> = {};
    if (cookies.length) headers.cookie = cookies.join('; ');
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(target, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()));
      if (expired || value === '') this.jar.delete(`${name}\u0000${path}`);
      else this.jar.set(`${name}\u0000${path}`, { value, path });
    }
    const location = res.headers.get('location') ?? undefined;
    return { url, status: res.status, location: location && new URL(location, url).href, setCookies, body: await res.text() };
  }

  /**
   * Follows redirects from `url`, signing in at the provider as `accountId` (its login form, then its consent form),
   * and stops at the first URL `stop` accepts (not requested) or at a page that is neither: returns that URL.
   */
  async signInAtProvider(url: string, accountId: string, stop: (url: string) => boolean): Promise<string> {
    let next = url;
    for (let i = 0; i < 20; i++) {
      if (stop(next)) return next;
      const hop = await this.request(next);
      if (hop.location) {
        next = hop.location;
        continue;
      }
      const prompt = /name="prompt" value="(\w+)"/.exec(hop.body)?.[1];
      const action = /<form[^>]*action="([^"]+)"/.exec(hop.body)?.[1];
      if (hop.status !== 200 || !prompt || !action) throw new Error(`unexpected page ${next}: ${hop.status} ${hop.body.slice(0, 300)}`);
      const form: Record<string, string> = prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt };
      const posted = await this.request(new URL(action, next).href, { method: 'POST', form });
      if (!posted.location) throw new Error(`the provider's ${prompt} form answered ${posted.status}: ${posted.body.slice(0, 300)}`);
      next = posted.location;
    }
    throw new Error('too many redirects');
  }
}
