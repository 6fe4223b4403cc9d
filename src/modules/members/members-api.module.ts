import { Global, Module } from '@nestjs/common';
import { SESSION_AUTHENTICATOR } from '../../common/auth/session-authenticator';
import { MailModule } from '../mail/mail.module';
import { TokensApiModule } from '../tokens/tokens-api.module';
import { InvitationsController, MembersController, UsersController } from './members.controller';
import { ManagerGuard } from './manager.guard';
import { MembersService } from './members.service';
import { SessionAuthService } from './session-auth.service';
import { SessionController } from './session.controller';
import { SessionsService } from './sessions.service';
import { SsoService } from './sso.service';

/** API process: sign-in and sessions, members and invitations, the signed-in user. Global so that the request guards
 * (and key management's guard) find the session authenticator. */
@Global()
@Module({
  imports: [TokensApiModule, MailModule],
  controllers: [SessionController, MembersController, InvitationsController, UsersController],
  providers: [ManagerGuard, SessionsService, SsoService, MembersService, SessionAuthService, { provide: SESSION_AUTHENTICATOR, useExisting: SessionAuthService }],
  exports: [SESSION_AUTHENTICATOR],
})
export class MembersApiModule {}
