import { createHash } from 'node:crypto';
import type { HostedResponse } from '../qr-codes/targets/target-handler';
import { renderStatusPage } from './status-pages';

function expectPageHeaders(r: HostedResponse): void {
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
  expect(r.headers['referrer-policy']).toBe('no-referrer');
  expect(r.headers['cache-control']).toBe('no-store');
}

describe('status pages', () => {
  it('answers 404 and 410 pages in the same style', () => {
    const missing = renderStatusPage(404);
    expect(missing.status).toBe(404);
    expect(String(missing.body)).toContain('This code does not exist');
    expectPageHeaders(missing);
    const gone = renderStatusPage(410);
    expect(gone.status).toBe(410);
    expect(String(gone.body)).toContain('This code is no longer active');
    expectPageHeaders(gone);
  });
});
