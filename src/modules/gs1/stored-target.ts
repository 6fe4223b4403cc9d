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

/** true when a stored target has the fields a GS1 code's update reads: what prepareGs1 stores always has them. */
export function isGs1StoredTarget(t: object): t is Gs1StoredTarget {
  const identifier = 'primary_key' in t && typeof t.primary_key === 'object' && t.primary_key !== null && 'qualifiers' in t && Array.isArray(t.qualifiers);
  return identifier && 'path' in t && typeof t.path === 'string' && 'links' in t && Array.isArray(t.links) && 'overrides' in t && Array.isArray(t.overrides);
}
