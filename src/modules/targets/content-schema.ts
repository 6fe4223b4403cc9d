import { ApiPropertyOptional, ApiSchema, OmitType } from '@nestjs/swagger';
import type { TargetHandler } from './target-handler';

type TargetSchema = TargetHandler['schema'];

/**
 * The OpenAPI schema of a `PUT /qr-codes/{id}/content` body for codes whose target is `schema`: the same fields as the
 * target at creation (descriptions and examples included, copied from `schema`), with `type` optional, since the body
 * may leave it out (when sent it must be the code's own type). Named `<Name>Content` after `<Name>Target`.
 * Documentation only: the handler's parse validates the body, as it does a creation's target.
 */
export function contentSchemaOf(schema: TargetSchema, types: readonly string[]): TargetSchema {
  const name = schema.name.replace(/Target$/, '') + 'Content';
  @ApiSchema({ name, description: `\`PUT /v1/qr-codes/{id}/content\` for ${types.join(', ')} codes: the fields of ${schema.name}, \`type\` optional` })
  abstract class Content extends OmitType(schema as new () => { type: string }, ['type'] as const) {
    @ApiPropertyOptional({ enum: [...types], description: 'May be omitted; when sent, it must be the code\'s own type' })
    type?: string;
  }
  Object.defineProperty(Content, 'name', { value: name });
  return Content;
}
