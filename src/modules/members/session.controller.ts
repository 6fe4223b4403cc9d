import { Body, Controller, Delete, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiFoundResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { Public, SessionAuth } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { ApiException } from '../../common/errors/api.exception';
import {
  SessionDto,
  SignInDto,
  SignInLinkDto,
  SignInLinkSentDto,
  SignInProvidersDto,
  SignOutQueryDto,
  SsoStartQueryDto,
  SwitchDto,
  TokenDto,
} from './dto/members.dto';
import { SessionsService } from './sessions.service';
import { DEFAULT_RETURN_TO, isDashboardPath, SsoService } from './sso.service';

const COOKIE_NOTE =
  'Also sets the refresh cookie `scanlink_refresh` (httpOnly, SameSite=Strict, Secure unless the API is served over plain http, path `/v1/session`, 30 days).';

@ApiTags('Sessions')
@Controller('session')
export class SessionController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly sso: SsoService,
  ) {}

  @Get('providers')
  @Public()
  @ApiOperation({
    summary: 'Sign-in methods on offer',
    description: 'What a sign-in page should show: password and e-mail link (when Scanlink issues sessions, i.e. `DASHBOARD_JWT_SECRET` is set) and single sign-on (when `OIDC_ISSUER_URL`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` are set too).',
  })
  @ApiOkResponse({ type: SignInProvidersDto })
  providers(): SignInProvidersDto {
    const own = this.sessions.issuesSessions;
    return { object: 'sign_in_providers', password: own, email_link: own, sso: this.sso.enabled, sso_url: this.sso.enabled ? '/v1/session/sso' : null };
  }

  @Get('sso')
  @Public()
  @ApiOperation({
    summary: 'Start single sign-on (browser)',
    description:
      'A browser navigation, not an API call: redirects (302) to the OpenID Connect provider (authorization code with PKCE). ' +
      'The provider sends the browser back to `GET /v1/session/sso/callback`. 404 when single sign-on is not configured.',
  })
  @ApiFoundResponse({ description: "Redirect to the provider's authorization endpoint (or to `/app/sign-in?sso_error=sso_unavailable`)" })
  async startSso(@Res() reply: FastifyReply, @Query() query: SsoStartQueryDto): Promise<void> {
    if (!this.sso.enabled) throw new ApiException('not_found', 'Single sign-on is not configured on this server');
    const returnTo = query.return_to ?? DEFAULT_RETURN_TO;
    if (!isDashboardPath(returnTo)) throw ApiException.invalid('return_to', 'return_to must be a dashboard path starting with /app/');
    const location = await this.sso.start(reply, returnTo);
    await reply.header('cache-control', 'no-store').redirect(location, 302);
  }

  @Get('sso/callback')
  @Public()
  @ApiOperation({
    summary: 'Single sign-on callback (browser)',
    description:
      "The redirect URI to register at the provider (`<API_BASE_URL>/session/sso/callback`). Checks state, issuer, nonce, PKCE and the ID token, matches the user by the provider's verified e-mail address, sets the refresh cookie and redirects (302) to the `return_to` path (default `/app/`), where the dashboard calls `POST /v1/session/refresh`. " +
      'On failure it redirects to `/app/sign-in?sso_error=<reason>` instead (`sso_expired`, `sso_denied`, `sso_failed`, `sso_email_unverified`, `sso_no_account`, `sso_unavailable`), without a cookie.',
  })
  @ApiFoundResponse({ description: 'Redirect to the dashboard (signed in) or to its sign-in page with `sso_error`' })
  async ssoCallback(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!this.sso.enabled) throw new ApiException('not_found', 'Single sign-on is not configured on this server');
    const location = await this.sso.callback(req, reply);
    await reply.header('cache-control', 'no-store').redirect(location, 302);
  }

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with e-mail and password',
    description: `Answers a dashboard session token (JWT, 15 minutes). ${COOKIE_NOTE} An unknown e-mail and a wrong password get the same 401 \`invalid_credentials\`; 10 failures a minute per e-mail or per client address → 429.`,
  })
  @ApiOkResponse({ type: SessionDto })
  signIn(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: SignInDto): Promise<SessionDto> {
    return this.sessions.signInWithPassword(req, reply, body);
  }

  @Post('refresh')
  @Public()
  @NoBody()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Refresh the session token',
    description: `Takes the refresh cookie, answers a new session token and rotates the cookie. A refresh token used a second time signs out every session of its sign-in.`,
  })
  @ApiOkResponse({ type: SessionDto })
  refresh(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionDto> {
    return this.sessions.refresh(req, reply);
  }

  @Post('switch')
  @SessionAuth()
  @HttpCode(200)
  @ApiOperation({ summary: 'Switch workspace', description: 'A session token for another workspace of the same user (404 for a workspace the user is not in).' })
  @ApiOkResponse({ type: SessionDto })
  switch(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Auth() auth: AuthContext, @Body() body: SwitchDto): Promise<SessionDto> {
    return this.sessions.switchWorkspace(req, reply, auth, body.organization_id);
  }

  @Delete()
  @Public()
  @NoBody()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Sign out',
    description: 'Ends this session (the refresh cookie) and clears the cookie; `?all=true` ends every session of the user (the cookie or a session token says who). Session tokens already issued expire within 15 minutes.',
  })
  @ApiNoContentResponse({ description: 'Signed out' })
  async signOut(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: SignOutQueryDto): Promise<void> {
    await this.sessions.signOut(req, reply, query.all === 'true');
  }

  @Post('link')
  @Public()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a sign-in link by e-mail',
    description: 'Always 202: when the address belongs to a member, a one-time link (15 minutes) to `/app/sign-in?token=…` is mailed.',
  })
  @ApiAcceptedResponse({ type: SignInLinkSentDto })
  async link(@Req() req: FastifyRequest, @Body() body: SignInLinkDto): Promise<SignInLinkSentDto> {
    await this.sessions.sendLink(req, body.email);
    return { object: 'sign_in_link', accepted: true };
  }

  @Post('link/verify')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in with the token of an e-mail link', description: `Single use. ${COOKIE_NOTE}` })
  @ApiOkResponse({ type: SessionDto })
  verify(@Res({ passthrough: true }) reply: FastifyReply, @Body() body: TokenDto): Promise<SessionDto> {
    return this.sessions.verifyLink(reply, body.token);
  }
}
