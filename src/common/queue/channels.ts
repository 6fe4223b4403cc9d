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
