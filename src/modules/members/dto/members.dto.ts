import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Length, Matches, MaxLength, ValidateBy } from 'class-validator';
import { ROLES, type Role } from '../../../common/auth/roles';
import { IsOmittable } from '../../../common/errors/validation';
import { ListEnvelopeDto } from '../../../common/http/list';

/** 1–256 characters, counted as characters (code points), as the minimum of 12 is and as JSON Schema's maxLength
 * counts: 150 emoji are 150 characters, not 300. */
const PasswordLength = (): PropertyDecorator =>
  ValidateBy({
    name: 'passwordLength',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length > 0 && [...value].length <= 256,
      defaultMessage: (args) => `${args?.property ?? 'password'} must be 1 to 256 characters`,
    },
  });

export class SessionUserDto {
  @ApiProperty({ example: 'usr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ example: 'ana@example.com' }) email!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Ana Lima' }) name!: string | null;
}

export class SessionDto {
  @ApiProperty({ enum: ['session'] }) object!: 'session';
  @ApiProperty({ description: 'Dashboard session token (JWT, HS256), valid 15 minutes. Keep it in memory only.' }) token!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expires_at!: string;
  @ApiProperty({ type: SessionUserDto }) user!: SessionUserDto;
  @ApiProperty({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc' }) organization_id!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}

export class SignInDto {
  @ApiProperty({ example: 'ana@example.com', maxLength: 320 })
  @IsString() @MaxLength(320) @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;

  @ApiProperty({ example: 'correct horse battery staple', maxLength: 256 })
  @IsString() @PasswordLength()
  password!: string;

  @ApiPropertyOptional({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc', description: 'The workspace to sign in to; default: the first one the user joined' })
  @IsOmittable() @IsString() @Matches(/^org_[0-9A-Za-z]+$/, { message: 'organization_id must be an org_… id' })
  organization_id?: string;
}

export class SignInLinkDto {
  @ApiProperty({ example: 'ana@example.com', maxLength: 320 })
  @IsString() @MaxLength(320) @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;
}

export class SignInLinkSentDto {
  @ApiProperty({ enum: ['sign_in_link'] }) object!: 'sign_in_link';
  @ApiProperty({ description: 'Always true: the answer does not say whether the address has an account', example: true }) accepted!: true;
}

export class TokenDto {
  @ApiProperty({ description: 'The token from the link', maxLength: 200 })
  @IsString() @Length(1, 200)
  token!: string;
}

export class SwitchDto {
  @ApiProperty({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc' })
  @IsString() @Matches(/^org_[0-9A-Za-z]+$/, { message: 'organization_id must be an org_… id' })
  organization_id!: string;
}

export class SignOutQueryDto {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true: sign out every session of the user ("sign out everywhere")' })
  @IsOmittable() @IsIn(['true', 'false'])
  all?: 'true' | 'false';
}

export class MembershipSummaryDto {
  @ApiProperty({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc' }) organization_id!: string;
  @ApiProperty({ example: 'Acme Coffee' }) name!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}

export class UserDto {
  @ApiProperty({ example: 'usr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['user'] }) object!: 'user';
  @ApiProperty({ example: 'ana@example.com' }) email!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Ana Lima' }) name!: string | null;
  @ApiProperty() has_password!: boolean;
  @ApiProperty({ type: [MembershipSummaryDto] }) memberships!: MembershipSummaryDto[];
}

export class UpdateMeDto {
  @ApiPropertyOptional({ example: 'Ana Lima', minLength: 1, maxLength: 255 })
  @IsOmittable() @IsString() @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ minLength: 12, maxLength: 256, example: 'correct horse battery staple', description: 'A new password (at least 12 characters)' })
  @IsOmittable() @IsString() @PasswordLength()
  password?: string;

  @ApiPropertyOptional({ maxLength: 256, example: 'my current passphrase', description: 'Required to change the password once one is set' })
  @IsOmittable() @IsString() @PasswordLength()
  current_password?: string;
}

export class MemberUserDto {
  @ApiProperty({ example: 'usr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ example: 'ana@example.com' }) email!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Ana Lima' }) name!: string | null;
}

export class MemberDto {
  @ApiProperty({ example: 'mem_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['member'] }) object!: 'member';
  @ApiProperty({ type: MemberUserDto }) user!: MemberUserDto;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({ enum: ['active', 'invited'] }) status!: 'active' | 'invited';
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a pending invitation lapses; null for active members' })
  invitation_expires_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
}

export class MemberListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [MemberDto] }) data!: MemberDto[];
}

export class DeletedMemberDto {
  @ApiProperty({ example: 'mem_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['member'] }) object!: 'member';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class InviteMemberDto {
  @ApiProperty({ example: 'sam@example.com', maxLength: 320 })
  @IsString() @MaxLength(320) @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class ListMembersQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 })
  @IsOmittable() @Matches(/^\d+$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional() @IsOmittable() @IsString()
  cursor?: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The token from the invitation link', maxLength: 200 })
  @IsString() @Length(1, 200)
  token!: string;

  @ApiPropertyOptional({ example: 'Sam Lee', minLength: 1, maxLength: 255 })
  @IsOmittable() @IsString() @Length(1, 255)
  name?: string;

  @ApiPropertyOptional({ minLength: 12, maxLength: 256, example: 'correct horse battery staple', description: 'Sets a password for a new account (at least 12 characters)' })
  @IsOmittable() @IsString() @PasswordLength()
  password?: string;
}


export class SignInProvidersDto {
  @ApiProperty({ enum: ['sign_in_providers'] }) object!: 'sign_in_providers';
  @ApiProperty({ description: 'E-mail and password (`POST /v1/session`)' }) password!: boolean;
  @ApiProperty({ description: 'One-time e-mail link (`POST /v1/session/link`)' }) email_link!: boolean;
  @ApiProperty({ description: 'OpenID Connect single sign-on: send the browser to `sso_url`' }) sso!: boolean;
  @ApiProperty({ type: String, nullable: true, example: '/v1/session/sso', description: 'Where a browser starts single sign-on (add `?return_to=/app/…`); null when it is not configured' })
  sso_url!: string | null;
}

export class SsoStartQueryDto {
  @ApiPropertyOptional({
    example: '/app/codes',
    maxLength: 2000,
    description: 'A dashboard path (under `/app`) to land on once signed in; default `/app/`',
  })
  @IsOmittable() @IsString() @MaxLength(2000)
  @Matches(/^\/app(\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?#]*)?$/, { message: 'return_to must be a dashboard path starting with /app/' })
  return_to?: string;
}
