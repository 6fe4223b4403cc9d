import { applyDecorators } from '@nestjs/common';
import { IsArray, IsObject, IsOptional, IsString, Matches, ValidateIf } from 'class-validator';
import { IsOmittable } from '../errors/validation';

/**
 * The validation of the fields every code-creating body shares (a standard or GS1 creation, a PATCH, a preview, a
 * batch), defined once so that each body refuses them with the same 400. Each property keeps its own
 * `@ApiPropertyOptional` beside it: the documentation says what the field does in that body.
 */

/** `design`: an object (its fields are checked by the design parser); `nullable` where null means "none" (a batch). */
export const IsDesignField = ({ nullable = false } = {}): PropertyDecorator =>
  nullable
    ? applyDecorators(IsOptional(), ValidateIf((_o, v) => v !== null), IsObject({ message: 'design must be an object or null' }))
    : applyDecorators(IsOmittable(), IsObject({ message: 'design must be an object' }));

/** `template_id`: a design template's id or null (an unknown id is the service's 404). */
export const IsTemplateIdField = (): PropertyDecorator =>
  applyDecorators(IsOptional(), ValidateIf((_o, v) => v !== null), IsString({ message: 'template_id must be a tpl_… id or null' }));

/** `folder_id`: a folder's id, or null (no folder). */
export const IsFolderIdField = (): PropertyDecorator =>
  applyDecorators(IsOptional(), ValidateIf((_o, v) => v !== null), IsString(), Matches(/^fld_[0-9A-Za-z]+$/, { message: 'folder_id must be a fld_… id or null' }));

/** `tags`: an array of strings (trimmed, deduplicated and limited by the service). */
export const IsTagsField = (): PropertyDecorator =>
  applyDecorators(IsOmittable(), IsArray({ message: 'tags must be an array of strings' }), IsString({ each: true, message: 'tags must be an array of strings' }));
