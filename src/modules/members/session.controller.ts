import { Body, Controller, Delete, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { Public, SessionAuth } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { SessionDto, SignInDto, SignInLinkDto, SignInLinkSentDto, SignOutQueryDto, SwitchDto, TokenDto } from './dto/members.dto';
import { SessionsService } from './sessions.service';

const COOKIE_NOTE =
  'Also sets the refresh cookie `scanlink_refresh` (httpOnly, SameSite=Strict, Secure unless the API is served over plain http, path `/v1/session`, 30 days).';

@ApiTags('Sessions')
@Controller('session')
export class SessionController {
  constructor(private readonly sessions: SessionsService) {}

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
