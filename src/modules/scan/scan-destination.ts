import { agentLocation, fixedLocation as typeFixedLocation } from '../targets/registry';
import type { CachedCode } from './scan-contract';

/**
 * The redirect of a code whose destination is the same for every visitor, computed once when the code enters the
 * cache (so a scan does no URL work). Null for page-served types or a target without a usable URL. The code's target
 * handler decides (src/modules/targets).
 */
export function fixedLocation(code: CachedCode): string | null {
  return typeFixedLocation(code.type, code.target);
}

/** The redirect chosen from the user agent (an appstores code: iOS → ios_url, Android → android_url), else null. */
export function userAgentLocation(code: CachedCode, userAgent: string | undefined): string | null {
  return agentLocation(code.type, code.target, userAgent);
}
