import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiException } from '../../common/errors/api.exception';
import { checkUrlTarget, isAllowListed, isPublicAddress, portOf, SsrfBlockedError } from '../../common/http/safe-fetch';

export type HostLookup = (hostname: string) => Promise<Array<{ address: string }>>;

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true });

/** Said with refusals a development setup may hit: the setting that admits a local receiver. */
const ALLOW_HINT =
  ' (for development and tests, WEBHOOK_ALLOW_HOSTS lists hosts that may be reached over plain http and on loopback or private addresses; `npm run local` allows localhost and 127.0.0.1)';

/**
 * Creation-time check of a webhook URL (400 on `url`): https only (plain http only for WEBHOOK_ALLOW_HOSTS), no
 * credentials, no loopback/private/link-local/metadata IP literal or internal name, and a hostname must not resolve to
 * such an address now. A name that does not resolve at all is accepted: the connect-time check in safe-fetch runs on
 * every delivery whatever DNS says later (so DNS rebinding gains nothing).
 */
export async function validateWebhookUrl(raw: string, allowHosts: string[], lookup: HostLookup): Promise<string> {
  // Stored as given (the host check above ran on the parsed form).
  let url: URL;
  try {
    url = checkUrlTarget(raw, { allowHosts, requireHttps: true });
  } catch (err) {
    if (err instanceof SsrfBlockedError) {
      const hint = /https|public/.test(err.message) ? ALLOW_HINT : '';
      throw ApiException.invalid('url', `url is not allowed: ${err.message}${hint}`);
    }
    throw err;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  const allowed = isAllowListed(allowHosts, host, portOf(url));
  if (!allowed && !isIP(host)) {
    let addresses: Array<{ address: string }> = [];
    try {
      addresses = await lookup(host);
    } catch {
      addresses = [];
    }
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) throw ApiException.invalid('url', `url is not allowed: ${host} resolves to a non-public address${ALLOW_HINT}`);
  }
  return raw;
}
