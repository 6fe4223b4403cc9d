import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { Public, SessionAuth } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import {
  AcceptInvitationDto,
  DeletedMemberDto,
  InviteMemberDto,
  ListMembersQueryDto,
  MemberDto,
  MemberListDto,
  SessionDto,
  UpdateMeDto,
  UpdateMemberDto,
  UserDto,
} from './dto/members.dto';
import { ManagerGuard } from './manager.guard';
import { MembersService } from './members.service';

@ApiTags('Members')
// Decorators apply bottom-up: the document lists api_key first, as on every other operation that takes both.
@ApiBearerAuth('dashboard_token')
@ApiBearerAuth('api_key')
@Controller('members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiOperation({ summary: 'List members and pending invitations', description: 'Newest first. Any member may list.' })
  @ApiOkResponse({ type: MemberListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListMembersQueryDto): Promise<MemberListDto> {
    return this.members.list(auth, query);
  }

  @Post()
  @UseGuards(ManagerGuard)
  @ApiOperation({
    summary: 'Invite a member by e-mail',
    description: 'Owners and admins (only an owner invites an owner). Mails a link valid 7 days; the member is `invited` until it is used. Counts against the plan\'s seats.',
  })
  @ApiCreatedResponse({ type: MemberDto })
  invite(@Auth() auth: AuthContext, @Body() body: InviteMemberDto): Promise<MemberDto> {
    return this.members.invite(auth, body);
  }

  @Patch(':id')
  @UseGuards(ManagerGuard)
  @ApiOperation({ summary: "Change a member's role", description: 'Owners and admins; only an owner grants or takes away `owner`. The last owner cannot be demoted (409 `last_owner`).' })
  @ApiOkResponse({ type: MemberDto })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateMemberDto): Promise<MemberDto> {
    return this.members.changeRole(auth, id, body.role);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove a member or cancel an invitation', description: 'Owners and admins, or a member leaving. The last owner cannot leave (409 `last_owner`). The member\'s sessions of this workspace end.' })
  @ApiOkResponse({ type: DeletedMemberDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedMemberDto> {
    return this.members.remove(auth, id);
  }
}

@ApiTags('Members')
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly members: MembersService) {}

  @Post('accept')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept an invitation',
    description: 'Takes the token of the invitation link (single use); a new user may set a name and a password. Answers a session in the workspace and sets the refresh cookie.',
  })
  @ApiOkResponse({ type: SessionDto })
  accept(@Res({ passthrough: true }) reply: FastifyReply, @Body() body: AcceptInvitationDto): Promise<SessionDto> {
    return this.members.accept(reply, body);
  }
}

@ApiTags('Members')
@SessionAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly members: MembersService) {}

  @Get('me')
  @ApiOperation({ summary: 'The signed-in user', description: 'With the workspaces they belong to.' })
  @ApiOkResponse({ type: UserDto })
  me(@Auth() auth: AuthContext): Promise<UserDto> {
    return this.members.me(auth);
  }

  @Patch('me')
  @ApiOperation({ summary: 'Update the signed-in user', description: 'Name and password; `current_password` is required to change a password once one is set.' })
  @ApiOkResponse({ type: UserDto })
  update(@Auth() auth: AuthContext, @Body() body: UpdateMeDto): Promise<UserDto> {
    return this.members.updateMe(auth, body);
  }
}
