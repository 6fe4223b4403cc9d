import { request } from 'node:http';
import type { TestDnsServer } from './dns-server';
import { http, type TestApp, type TestOrg } from './app';

let seq = 0;
/** A host name no other test (or run) holds: host names are unique across every workspace of the database. */
export const uniqueHostname = (label = 'go'): string => `${label}-${Date.now().toString(36)}${(seq++).toString(36)}.dom-${process.pid}.example`;

export interface TestDomain {
  id: string;
  hostname: string;
  status: string;
  verification: { name: string; value: string };
  [field: string]: unknown;
}

/** Creates a domain through the API (201 expected), pending. */
export async function pendingDomain(api: TestApp, org: TestOrg, hostname = uniqueHostname()): Promise<TestDomain> {
  const res = await http<TestDomain>(api.origin, 'POST', '/v1/domains', { key: org.apiKey, body: { hostname } });
  if (res.status !== 201) throw new Error(`POST /v1/domains answered ${res.status}: ${res.text}`);
  return res.body;
}

/** Creates a domain, publishes its TXT record on the loopback DNS server and verifies it through the API. */
export async function verifiedDomain(api: TestApp, dns: TestDnsServer, org: TestOrg, hostname = uniqueHostname()): Promise<TestDomain> {
  const made = await pendingDomain(api, org, hostname);
  dns.setTxt(made.verification.name, made.verification.value);
  const res = await http<TestDomain>(api.origin, 'POST', `/v1/domains/${made.id}/verify`, { key: org.apiKey });
  if (res.body.status !== 'verified') throw new Error(`domain ${made.hostname} did not verify: ${res.text}`);
  return res.body;
}

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request to the scan process with an explicit `Host` header (fetch does not let a test choose it), as a browser
 * sends it for a custom domain whose DNS points at the scan host.
 */
export function requestWithHost(origin: string, method: string, path: string, host: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<HostAnswer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, method, path, setHost: false, headers: { host, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
