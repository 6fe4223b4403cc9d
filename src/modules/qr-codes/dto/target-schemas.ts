import { ApiPropertyOptional, ApiSchema, getSchemaPath, OmitType } from '@nestjs/swagger';
import { PAGE_TARGET_SCHEMAS, TARGET_SCHEMA_BY_TYPE, TARGET_SCHEMAS } from '../../targets/registry';

/** OpenAPI documentation of `target`: a discriminated union on `type` of the schemas the target handlers declare.
 * Validation lives in the handlers (targets/); their schema classes only describe it. */
export { TARGET_SCHEMAS };

export const TARGET_UNION = {
  oneOf: TARGET_SCHEMAS.map((c) => ({ $ref: getSchemaPath(c) })),
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries([...TARGET_SCHEMA_BY_TYPE].map(([type, cls]) => [type, getSchemaPath(cls)])),
  },
};

type TargetSchema = (typeof TARGET_SCHEMAS)[number];

/**
 * The OpenAPI schema of a `PUT /qr-codes/{id}/content` body for codes whose target is `schema`: the same fields as the
 * target at creation (descriptions and examples included, copied from `schema`), with `type` optional, since the body
 * may leave it out (when sent it must be the code's own type). Named `<Name>Content` after `<Name>Target`.
 * Documentation only: the handler's parse validates the body, as it does a creation's target.
 */
function contentSchemaOf(schema: TargetSchema, types: readonly string[]): TargetSchema {
  const name = schema.name.replace(/Target$/, '') + 'Content';
  @ApiSchema({ name, description: `\`PUT /v1/qr-codes/{id}/content\` for ${types.join(', ')} codes: the fields of ${schema.name}, \`type\` optional` })
  abstract class Content extends OmitType(schema as new () => { type: string }, ['type'] as const) {
    @ApiPropertyOptional({ enum: [...types], description: 'May be omitted; when sent, it must be the code\'s own type' })
    type?: string;
  }
  Object.defineProperty(Content, 'name', { value: name });
  return Content;
}

/** `PUT /qr-codes/{id}/content` takes one of these: each page-holding type's schema with `type` optional. Built here, beside
 * the other OpenAPI target schemas, rather than in the target registry that the scan process loads too. */
export const PAGE_CONTENT_SCHEMAS = PAGE_TARGET_SCHEMAS.map((schema) =>
  contentSchemaOf(schema, [...TARGET_SCHEMA_BY_TYPE].filter(([, s]) => s === schema).map(([type]) => type)),
);
