import type { AiValue } from './identifier';
import type { Gs1Link, Gs1Override } from './resolver-data';
import type { QrKind } from '../targets/target-handler';

/** What a GS1 code stores in qr_codes.target (the identifier also in qr_codes.gs1_key, for dynamic codes). */
export interface Gs1StoredTarget {
  mode: QrKind;
  primary_key: AiValue;
  qualifiers: AiValue[];
  attributes: Record<string, string>;
  /** canonical path of primary key and qualifiers (= gs1_key) */
  path: string;
  /** canonical data-attribute query, '' when none */
  query: string;
  /** the gs1:defaultLink (dynamic), null for static codes */
  default_link: string | null;
  links: Gs1Link[];
  overrides: Gs1Override[];
  /** the customer's resolver host (static), null for dynamic codes */
  domain: string | null;
}
