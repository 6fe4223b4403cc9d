import { gs1Kind } from '../gs1/gs1-kind';
import { storedHandler, TARGET_TYPES } from '../targets/registry';
import { defineStoredType, type OwnPaths, type StoredCodeType } from '../targets/target-handler';

/**
 * The kinds of code. Most codes are target-typed: their `target.type` names a handler of src/modules/targets. A kind
 * with a creation body of its own (GS1 Digital Link, src/modules/gs1/gs1-kind.ts) answers the same questions about its
 * stored codes (StoredCodeType) and is listed here; the rest of the code asks through these functions and never tests a
 * type name.
 */
const OWN_KINDS = [gs1Kind];
/** Every type a stored code may have: the target types and the kinds with a body of their own. */
export const CODE_TYPES: readonly string[] = [...TARGET_TYPES, ...OWN_KINDS.map((k) => k.type)];
const OWN_PATHS: OwnPaths[] = OWN_KINDS.map(defineStoredType).flatMap((k) => (k.scan.ownPaths ? [k.scan.ownPaths] : []));

/** What a stored code's type answers (payload, encoded URL, response `target`, scan): its kind's or its target handler's. */
export function storedType(type: string): StoredCodeType {
  const own = OWN_KINDS.find((k) => k.owns({ type }));
  return own ? defineStoredType(own) : storedHandler(type);
}

/** The own paths (StoredCodeType scan.ownPaths) `url` is on, or null: the scan host asks before short codes. */
export function ownPathsOf(url: string): OwnPaths | null {
  for (const paths of OWN_PATHS) if (paths.claims(url)) return paths;
  return null;
}
