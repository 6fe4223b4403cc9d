import { getSchemaPath } from '@nestjs/swagger';
import { TARGET_SCHEMA_BY_TYPE, TARGET_SCHEMAS } from '../../targets/registry';

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
