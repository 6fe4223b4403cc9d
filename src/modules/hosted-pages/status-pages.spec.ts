import { expectPageHeaders } from './testing/expect-page-headers';
import { renderStatusPage } from './status-pages';


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

  it('answers a 400 page for an invalid GS1 Digital Link', () => {
    const bad = renderStatusPage(400);
    expect(bad.status).toBe(400);
    expect(String(bad.body)).toContain('This link is not valid');
    expectPageHeaders(bad);
  });
});
