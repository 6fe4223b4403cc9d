import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, JWTPayload } from 'jose';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { isRole, type Role } from '../../common/auth/roles';

const CLOCK_SKEW_SECONDS = 30;

export interface DashboardSession {
  userId: string;
  organizationId: string;
  email: string | null;
  emailVerified: boolean;
  /** The `role` claim of Scanlink's own session tokens; absent from tokens of an external identity provider. */
  role?: Role;
  /** Issued-at (seconds), when the token carries it. */
  issuedAt?: number;
}

/** Verifies dashboard session tokens (JWTs from the identity provider): HS256 with DASHBOARD_JWT_SECRET, or RS256/ES256
 * against DASHBOARD_JWKS_URL. Also mints HS256 tokens for the local identity provider (the CLI). */
@Injectable()
export class DashboardAuthService {
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    if (config.dashboardJwksUrl) this.jwks = createRemoteJWKSet(new URL(config.dashboardJwksUrl));
  }

  async verify(authorization: string | undefined): Promise<DashboardSession> {
    const required = 'A dashboard session token is required: send "Authorization: Bearer <JWT>"';
    if (!authorization) throw new ApiException('unauthorized', required);
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) throw new ApiException('unauthorized', `Malformed Authorization header. ${required}`);
    const token = match[1];
    if (/^qr_(live|test)_/.test(token)) {
      throw new ApiException('unauthorized', 'Dashboard session token required: this operation takes a dashboard session token (POST /v1/session), not an API key');
    }
    let payload: JWTPayload;
    // iss / aud are checked when configured. An external identity provider's clock may be a few seconds off ours; the
    // local one (HS256, minted on this machine) shares our clock, so its tokens get no tolerance.
    const claims = { issuer: this.config.dashboardJwtIssuer, audience: this.config.dashboardJwtAudience };
    try {
      // Scanlink's own sessions are HS256 under DASHBOARD_JWT_SECRET; an external provider's come through the JWKS.
      // With both configured, the token's `alg` picks the verifier (each one still pins its algorithms).
      const ownToken = this.config.dashboardJwtSecret !== undefined && decodeProtectedHeader(token).alg === 'HS256';
      if (this.jwks && !ownToken) {
        ({ payload } = await jwtVerify(token, this.jwks, { algorithms: ['RS256', 'ES256'], ...claims, clockTolerance: CLOCK_SKEW_SECONDS }));
      } else if (this.config.dashboardJwtSecret) {
        ({ payload } = await jwtVerify(token, this.secretKey(), { algorithms: ['HS256'], ...claims }));
      } else {
        throw new Error('no verifier configured');
      }
    } catch (err) {
      const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw new ApiException('unauthorized', expired ? 'The dashboard session token has expired' : 'Invalid dashboard session token');
    }
    if (typeof payload.org_id !== 'string' || typeof payload.sub !== 'string' || typeof payload.exp !== 'number') {
      throw new ApiException('unauthorized', 'Invalid dashboard session token: sub, org_id and exp claims are required');
    }
    return {
      userId: payload.sub,
      organizationId: payload.org_id,
      email: typeof payload.email === 'string' ? payload.email : null,
      emailVerified: payload.email_verified === true,
      role: isRole(payload.role) ? payload.role : undefined,
      issuedAt: typeof payload.iat === 'number' ? payload.iat : undefined,
    };
  }

  /** Local identity provider: an HS256 token for the CLI's `dashboard-token` and for the sessions Scanlink issues
   * (`userId` and `role` name the member; without them the subject is the workspace's operator). */
  async mint(claims: { organizationId: string; email: string; emailVerified: boolean; expiresInSeconds: number; userId?: string; role?: Role }): Promise<string> {
    if (!this.config.dashboardJwtSecret) throw new Error('DASHBOARD_JWT_SECRET is not set');
    const body: Record<string, unknown> = { org_id: claims.organizationId, email: claims.email, email_verified: claims.emailVerified };
    if (claims.role) body.role = claims.role;
    const jwt = new SignJWT(body).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
    if (this.config.dashboardJwtIssuer) jwt.setIssuer(this.config.dashboardJwtIssuer);
    if (this.config.dashboardJwtAudience) jwt.setAudience(this.config.dashboardJwtAudience);
    return jwt
      .setSubject(claims.userId ?? `user_${claims.organizationId}`)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + claims.expiresInSeconds)
      .sign(this.secretKey());
  }

  private secretKey(): Uint8Array {
    return new TextEncoder().encode(this.config.dashboardJwtSecret);
  }
}
