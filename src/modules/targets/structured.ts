import { ApiException } from '../../common/errors/api.exception';
import { FieldReader, Input } from './fields';
import type { TargetHandler } from './target-handler';

/** Structured types: created from fields or a pre-encoded `destination`; PATCH merges fields, refuses `destination`. */
export function structured<T extends object>(
  type: string,
  fields: string[],
  read: (r: FieldReader) => T,
  fromDestination: (raw: string, r: FieldReader) => Input,
  payload: (t: T) => string,
  own: Pick<TargetHandler<T>, 'schema' | 'scan'>,
): TargetHandler<T> {
  return {
    type,
    ...own,
    staticCapable: true,
    pageHolding: false,
    parse(r) {
      r.only([...fields, 'destination']);
      if (r.has('destination')) {
        const other = fields.find((f) => r.has(f));
        if (other) r.fail('destination', `cannot be combined with structured fields (${r.field(other)})`);
        const raw = r.string('destination', { required: true, max: 4000, trim: false })!;
        return read(new FieldReader(fromDestination(raw, r), r.path));
      }
      return read(r);
    },
    patch(current, r) {
      if ('destination' in r.input) {
        throw ApiException.invalid(r.field('destination'), `${r.field('destination')} cannot be set on a dynamic ${type} code: update its fields instead`);
      }
      r.only(fields);
      const merged: Input = { ...(current as Input) };
      for (const f of fields) if (f in r.input) merged[f] = r.input[f];
      const target: object = read(new FieldReader(merged, r.path));
      return { type, target: { ...target } };
    },
    payload,
  };
}

export const badDestination = (r: FieldReader, what: string): never =>
  r.fail('destination', `must be ${what} (or send the structured fields instead)`);
