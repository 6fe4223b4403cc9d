import { ApiProperty } from '@nestjs/swagger';

export class HealthChecksDto {
  @ApiProperty({ example: 'ok', description: "'ok' or 'error: <reason>'" }) postgres!: string;
  @ApiProperty({ example: 'ok', description: "'ok' or 'error: <reason>'" }) redis!: string;
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ type: HealthChecksDto }) checks!: HealthChecksDto;
}
