import type { FieldReader } from './fields';

export type StoredTarget = Record<string, unknown>;
export type QrKind = 'dynamic' | 'static';

/** Everything a target type decides: validation at creation, PATCH rules, the static payload, the summary. */
export interface TargetHandler {
  readonly type: string;
  /** `type: static` is honoured (else 400 on `type`). */
  readonly staticCapable: boolean;
  /** Page-holding codes report editable: false and refuse `target` on PATCH (409). */
  readonly pageHolding: boolean;
  parse(r: FieldReader, kind: QrKind): StoredTarget;
  /** PATCH of a live dynamic, non-page-holding code: omitted fields keep their value. May change the type (location →
   * url when given a plain destination). */
  patch(current: StoredTarget, r: FieldReader): { type: string; target: StoredTarget };
  /** What a static code encodes. */
  payload(target: StoredTarget): string;
  summary?(target: StoredTarget, counts: { leadCount: number }): Record<string, unknown>;
}
