import { isIP } from 'node:net';

/**
 * DOMAIN_DNS_SERVERS: comma-separated `host:port` (IPv6 as `[addr]:port`; the port may be left out for 53), in the
 * form `dns.Resolver#setServers` takes. Node's resolver needs IP addresses, not names. Returns the entries as given
 * (trimmed), or an error message naming the first bad one.
 */
export function parseDnsServers(raw: string): { servers: string[] } | { error: string } {
  const servers: string[] = [];
  for (const entry of raw.split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
    const v4 = /^([^:]+)(?::(\d{1,5}))?$/.exec(entry);
    const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [entry, undefined];
    const family = isIP(host);
    const portOk = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (!family || !portOk || (family === 6 && !bracketed && host !== entry)) {
      return { error: `DOMAIN_DNS_SERVERS entry "${entry}" must be an IP address with an optional port (1.2.3.4:53, [::1]:53)` };
    }
    servers.push(entry);
  }
  return { servers };
}
