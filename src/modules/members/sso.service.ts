import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import type { Agent } from 'undici';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { SecretBox } from '../../common/crypto/secret-box';
import { createSafeAgent, portOf, safeFetch } from '../../common/http/safe-fetch';
import { activeMembershipsOf, findUserByEmail, normalizeEmail } from './members.repository';
import { SessionsService } from './sessions.service';

export const SSO_COOKIE = 'scanlink_sso';
export const SSO_COOKIE_PATH = '/v1/session/sso';
/** How long a browser has between leaving for the provider and coming back. */
export const SSO_FLOW_TTL_MS = 10 * 60_000;
export const DEFAULT_RETURN_TO = '/app/';

/** Why a single sign-on did not end in a session: the `sso_error` of the redirect to `/app/sign-in`. */
export type SsoError =
  | 'sso_expired' // no (valid) flow cookie: too slow, or the callback came to another browser
  | 'sso_denied' // the provider answered with an error (the user cancelled, or was refused there)
  | 'sso_failed' // state, issuer, nonce, PKCE or token checks failed
  | 'sso_email_unverified' // the provider does not vouch for the e-mail address
  | 'sso_no_account' // no Scanlink user with that e-mail, or one without an active membership
  | 'sso_unavailable'; // the provider could not be reached

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  expiresAt: number;
}

/** `return_to`: a path of the dashboard, never another origin (`//host`, `/\host`) or anything outside `/app`. */
export function isDashboardPath(value: string): boolean {
  return value.length <= 2000 && /^\/app(\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?#]*)?$/.test(value) && !value.includes('//') && !value.includes('/..');
}

/**
 * OpenID Connect single sign-on (openid-client): authorization code with PKCE (S256), `state` and `nonce` checked, the
 * ID token verified against the issuer's JWKS, the user matched by the provider's *verified* e-mail address. The
 * provider's documents (discovery, JWKS, token endpoint) are fetched through the SSRF-safe agent; the issuer's own
 * host and port are trusted, because the operator named them, so an identity provider on a private network works.
 */
@Injectable()
export class SsoService {
  private readonly logger = new Logger(SsoService.name);
  private readonly box: SecretBox;
  private readonly agent?: Agent;
  private discovered?: Promise<oidc.Configuration>;

  constructor(
    private readonly em: EntityManager,
    private readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.box = new SecretBox(config.appSecret, 'sso-flow');
    if (config.oidc) {
      const issuer = new URL(config.oidc.issuerUrl);
      this.agent = createSafeAgent({ allowHosts: [`${issuer.hostname}:${portOf(issuer)}`], connectTimeoutMs: 5000 });
    }
  }

  /** Whether the sign-in page should offer single sign-on. */
  get enabled(): boolean {
    return this.config.oidc !== undefined && this.config.dashboardJwtSecret !== undefined;
  }

  /** The redirect URI to register at the provider. */
  get redirectUri(): string {
    return `${this.config.apiBaseUrl}/session/sso/callback`;
  }

  private get dashboardOrigin(): string {
    return new URL(this.config.apiBaseUrl).origin;
  }

  /** Where the browser goes first: the provider's authorization endpoint, with a sealed flow cookie set. */
  async start(reply: FastifyReply, returnTo = DEFAULT_RETURN_TO): Promise<string> {
    let configuration: oidc.Configuration;
    try {
      configuration = await this.configuration();
    } catch (err) {
      this.logger.warn(`single sign-on: the provider could not be reached: ${(err as Error).message}`);
      return this.failure('sso_unavailable');
    }
    const flow: Flow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      returnTo,
      expiresAt: Date.now() + SSO_FLOW_TTL_MS,
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    });
    this.setFlowCookie(reply, this.box.seal(JSON.stringify(flow), SSO_COOKIE), SSO_FLOW_TTL_MS / 1000);
    return url.href;
  }

  /** The provider sends the browser back here: checks everything, then answers the dashboard URL to redirect to (with
   * the refresh cookie set), or the sign-in page with `sso_error`. */
  async callback(req: FastifyRequest, reply: FastifyReply): Promise<string> {
    const flow = this.readFlow(req);
    // The flow cookie is single use: cleared whatever the outcome.
    this.setFlowCookie(reply, '', 0);
    if (!flow) return this.failure('sso_expired');
    const search = new URL(req.url, 'http://callback.invalid').search;
    const current = new URL(this.redirectUri);
    current.search = search;
    if (current.searchParams.has('error')) return this.failure('sso_denied');
    let configuration: oidc.Configuration;
    try {
      configuration = await this.configuration();
    } catch (err) {
      this.logger.warn(`single sign-on: the provider could not be reached: ${(err as Error).message}`);
      return this.failure('sso_unavailable');
    }
    let identity: Record<string, unknown> | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        pkceCodeVerifier: flow.verifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      identity = claims as Record<string, unknown> | undefined;
      // Many providers put `email` in the ID token only when asked; otherwise it comes from the UserInfo endpoint,
      // for the same subject (the library checks `sub`).
      if (claims && typeof claims.email !== 'string' && configuration.serverMetadata().userinfo_endpoint) {
        identity = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      }
    } catch (err) {
      // The library's message names the check that failed (state, iss, nonce, signature…); it holds no secret.
      this.logger.warn(`single sign-on refused: ${(err as Error).message}`);
      return this.failure('sso_failed');
    }
    // Only an address the provider vouches for identifies a Scanlink user (anyone can type any address at some providers).
    if (!identity || typeof identity.email !== 'string' || identity.email_verified !== true) return this.failure('sso_email_unverified');
    const em = this.em.fork();
    const user = await findUserByEmail(em, normalizeEmail(identity.email));
    if (!user || (await activeMembershipsOf(em, user.id)).length === 0) return this.failure('sso_no_account');
    await this.sessions.start(em, reply, user, undefined, 'sso');
    return `${this.dashboardOrigin}${flow.returnTo}`;
  }

  /** Discovery, once (retried on the next sign-in after a failure). */
  private configuration(): Promise<oidc.Configuration> {
    const settings = this.config.oidc;
    if (!settings || !this.agent) return Promise.reject(new Error('single sign-on is not configured'));
    this.discovered ??= (async () => {
      const issuer = new URL(settings.issuerUrl);
      const insecure = issuer.protocol === 'http:';
      const configuration = await oidc.discovery(issuer, settings.clientId, undefined, undefined, {
        [oidc.customFetch]: this.fetcher(),
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      });
      // client_secret_basic is the OpenID default; a provider that lists only client_secret_post gets that.
      const methods = configuration.serverMetadata().token_endpoint_auth_methods_supported;
      const auth = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? oidc.ClientSecretPost : oidc.ClientSecretBasic;
      const client = new oidc.Configuration(configuration.serverMetadata(), settings.clientId, undefined, auth(settings.clientSecret));
      client[oidc.customFetch] = this.fetcher();
      if (insecure) oidc.allowInsecureRequests(client);
      return client;
    })();
    this.discovered.catch(() => (this.discovered = undefined));
    return this.discovered;
  }

  /** Every request to the provider goes through the SSRF-safe agent, with a time and size limit. */
  private fetcher(): oidc.CustomFetch {
    const agent = this.agent as Agent;
    return async (url, options) => {
      const body = options.body;
      const res = await safeFetch(agent, url, {
        method: options.method,
        headers: options.headers,
        body: body === undefined || body === null ? undefined : typeof body === 'string' ? body : body instanceof URLSearchParams ? body.toString() : Buffer.from(body as ArrayBuffer),
        timeoutMs: 10_000,
        maxBytes: 1024 * 1024,
        onOversize: 'error',
      });
      const empty = [101, 204, 205, 304].includes(res.status);
      return new Response(empty ? null : res.body, { status: res.status, headers: res.headers });
    };
  }

  private failure(error: SsoError): string {
    return `${this.dashboardOrigin}/app/sign-in?sso_error=${error}`;
  }

  private readFlow(req: FastifyRequest): Flow | undefined {
    const raw = req.headers.cookie ? parseCookies(req.headers.cookie)[SSO_COOKIE] : undefined;
    if (!raw || raw.length > 4000) return undefined;
    try {
      const flow = JSON.parse(this.box.open(raw, SSO_COOKIE)) as Flow;
      return flow.expiresAt > Date.now() && isDashboardPath(flow.returnTo) ? flow : undefined;
    } catch {
      return undefined;
    }
  }

  /** SameSite=Lax: the provider sends the browser back with a cross-site redirect, which a Strict cookie would miss. */
  private setFlowCookie(reply: FastifyReply, value: string, maxAgeSeconds: number): void {
    const secure = this.config.env === 'production' || !this.config.apiBaseUrl.startsWith('http://');
    void reply.header('set-cookie', serializeCookie(SSO_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, path: SSO_COOKIE_PATH, maxAge: maxAgeSeconds }));
  }
}
