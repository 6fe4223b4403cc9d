/** Redis pub/sub channels shared by processes. */
export const CHANNELS = {
  /** Published after commit whenever a code changes (update, delete, restore, pause, permanent delete).
   * Message: JSON {"id": "qr_…", "short_code": "AbC1234", "domain_id": null, "gs1_key": null, "ack": "…"}. Scan
   * processes drop the code from their in-process cache and the shared Redis cache, then publish `ack` (when present)
   * on qrInvalidated. */
  qrInvalidate: 'scanlink:qr:invalidate',
  /** A scan process's acknowledgement of a qrInvalidate message: the message's `ack` token. The API waits for one per
   * receiving scan process before it answers the change (qr-codes/scan-cache-invalidator.ts). */
  qrInvalidated: 'scanlink:qr:invalidated',
  /** Published after commit whenever the set of verified custom domains may have changed (a domain verified or
   * deleted). Message: JSON {"hostname": "go.acme.example"}. Scan processes reload their host → domain map. */
  domainsChanged: 'scanlink:domains:changed',
} as const;
