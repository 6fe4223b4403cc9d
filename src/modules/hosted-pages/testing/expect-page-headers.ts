import { createHash } from 'node:crypto';
import type { HostedResponse } from '../hosted-response';

/** Test helper: the headers every hosted page carries (a strict CSP naming the page's one style block by hash). */
export function expectPageHeaders(r: HostedResponse): void {
  const csp = r.headers['content-security-policy'];
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain('img-src data:');
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src|unsafe-inline/);
  const styles = [...String(r.body).matchAll(/<style>([\s\S]*?)<\/style>/g)];
  expect(styles).toHaveLength(1);
  const hash = createHash('sha256').update(styles[0][1], 'utf8').digest('base64');
  expect(csp).toContain(`style-src 'sha256-${hash}'`);
  expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  expect(r.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(r.headers['cache-control']).toBe('no-store');
}
