import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthContext } from '../../common/auth/auth-context';
import { AccountsService } from './accounts.service';

@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  validate(token: string): Promise<AuthContext> {
    return this.accounts.authenticate(token);
  }
}
