import { ApiProperty } from '@nestjs/swagger';

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function listOf<T>(data: T[], hasMore: boolean, nextCursor: string | null): ListEnvelope<T> {
  return { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? nextCursor : null };
}

export class ListEnvelopeDto {
  @ApiProperty({ enum: ['list'], example: 'list' }) object!: 'list';
  @ApiProperty({ example: false }) has_more!: boolean;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page' })
  next_cursor!: string | null;
}
