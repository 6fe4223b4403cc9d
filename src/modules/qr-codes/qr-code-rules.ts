import stableStringify from 'safe-stable-stringify';
import { ApiException } from '../../common/errors/api.exception';
import { characters } from '../targets/fields';

/** Equal as JSON whatever the key order (jsonb stores object keys in its own order): a PATCH that re-sends what is
 * stored changes nothing, bumps no updated_at and emits no qr.updated. */
export const sameJson = (a: unknown, b: unknown): boolean => stableStringify(a) === stableStringify(b);

const MAX_TAGS = 10;
const MAX_TAG_LENGTH = 50;

export function normalizeTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) throw ApiException.invalid('tags', 'tags must be an array of strings');
  const out: string[] = [];
  for (const [i, t] of tags.entries()) {
    const field = `tags[${i}]`;
    if (typeof t !== 'string') throw ApiException.invalid(field, `${field} must be a string`);
    const s = t.trim();
    if (!s) throw ApiException.invalid(field, `${field} must not be empty`);
    if (characters(s) > MAX_TAG_LENGTH) throw ApiException.invalid(field, `${field} must be at most ${MAX_TAG_LENGTH} characters`);
    if (!out.includes(s)) out.push(s);
  }
  if (out.length > MAX_TAGS) throw ApiException.invalid('tags', `tags must have at most ${MAX_TAGS} items`);
  return out;
}
