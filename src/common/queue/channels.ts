/** Redis pub/sub channels shared by processes. */
export const CHANNELS = {
  /** Published after commit whenever a code changes (update, delete, restore, pause, permanent delete).
   * Message: JSON {"id": "qr_…", "short_code": "AbC1234", "domain_id": null}. Scan processes drop the code from their
   * in-process cache and the shared Redis cache. */
  qrInvalidate: 'scanlink:qr:invalidate',
  /** Published after commit whenever the set of verified custom domains may have changed (a domain verified or
   * deleted). Message: JSON {"hostname": "go.acme.example"}. Scan processes reload their host → domain map. */
  domainsChanged: 'scanlink:domains:changed',
} as const;

/** Redis key of a code's scan number as the scan host counts it: `scanlink:scan-number:<code id>`, kept by the scan
 * processes for codes whose number matters (a scan limit or a `scans` rule; modules/scan/scan-numbers.ts) and read by
 * the api's rule tester for "the next scan". */
export const SCAN_NUMBER_KEY_PREFIX = 'scanlink:scan-number:';
