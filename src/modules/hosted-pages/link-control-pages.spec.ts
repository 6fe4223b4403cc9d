import { renderExpiredPage, renderPasswordPage, renderTooManyTriesPage } from './link-control-pages';

describe('link-control pages', () => {
  it('the password page and its 429 page send no referrer, in the header and the meta tag, and are noindex', () => {
    for (const page of [renderPasswordPage('AbC1234'), renderPasswordPage('AbC1234', { error: true }), renderTooManyTriesPage(30)]) {
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
      expect(String(page.body)).toContain('<meta name="referrer" content="no-referrer">');
      expect(String(page.body)).toContain('<meta name="robots" content="noindex, nofollow">');
    }
  });

  it('the expired page is noindex and keeps the referrer policy of every other answer', () => {
    const page = renderExpiredPage();
    expect(page.status).toBe(410);
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(page.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(String(page.body)).toContain('<meta name="referrer" content="strict-origin-when-cross-origin">');
  });
});
