import { ApiProperty } from '@nestjs/swagger';

export class HealthChecksDto {
  @ApiProperty({ example: 'ok', description: "'ok' or 'error' (the error's text is never shown)" }) postgres!: string;
  @ApiProperty({ example: 'ok', description: "'ok' or 'error' (the error's text is never shown)" }) redis!: string;
  @ApiProperty({ example: 'ok', description: "'ok', 'pending: <count>' (migrations not yet applied) or 'error'" })
  migrations!: string;
}

/** `GET /health/ready` and `GET /health`. */
export class HealthDto {
  @ApiProperty({ enum: ['ok', 'degraded'] }) status!: 'ok' | 'degraded';
  @ApiProperty({ type: HealthChecksDto }) checks!: HealthChecksDto;
}

/** `GET /health/live`: the process runs; nothing else is checked. */
export class LivenessDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}
