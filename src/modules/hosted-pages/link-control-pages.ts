import { esc, page } from './layout';
import type { HostedResponse } from './hosted-response';

/** The hosted pages of link controls (docs/link-controls.md): pure, every value escaped, no script. */

/** The link-control pages are kept out of search results by header too, for crawlers that do not read the page's meta
 * tag. */
const NOINDEX = { 'x-robots-tag': 'noindex, nofollow' };

/** The password page and its 429 page send no referrer (nor the unlock's 302): nothing about a protected code leaves
 * with a visitor who follows a link elsewhere. */
const PASSWORD_HEADERS = { ...NOINDEX, 'referrer-policy': 'no-referrer' };

const EXPIRED = page(410, 'Expired', '<h1>This code has expired</h1>\n<p class="muted">Its owner set it to stop working after a date or a number of scans.</p>', NOINDEX);
const EXPIRED_BODY = Buffer.from(EXPIRED.body);

/** 410: the code's expiry date or scan limit has passed and it has no expired_url. */
export function renderExpiredPage(): HostedResponse {
  return { status: EXPIRED.status, headers: { ...EXPIRED.headers }, body: EXPIRED_BODY };
}

/**
 * The password page: one labelled password field posting to `/{short_code}/unlock` (host-relative, so it works on
 * whichever host served it). `error` re-renders it after a wrong password, with the message tied to the field. Both answer 200: the
 * password page is the same page, with or without an error (a right password answers 302).
 */
export function renderPasswordPage(shortCode: string, opts: { error?: boolean } = {}): HostedResponse {
  const error = opts.error
    ? '<div class="summary" role="alert"><h2>Wrong password</h2><p><a href="#password">Check the password and try again.</a></p></div>\n'
    : '';
  const invalid = opts.error ? ' aria-invalid="true" aria-describedby="password-error"' : ' aria-describedby="password-help"';
  const hint = opts.error
    ? '<p class="error" id="password-error">The password is not right.</p>'
    : '<p class="muted" id="password-help">Ask whoever shared this code for the password.</p>';
  return page(
    200,
    'Password required',
    `<h1>This code is protected</h1>
${error}<form method="post" action="/${esc(shortCode)}/unlock" novalidate>
<div class="field">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required aria-required="true"${invalid}>
${hint}
</div>
<div class="actions"><button type="submit">Continue</button></div>
</form>`,
    PASSWORD_HEADERS,
  );
}

/** 429: too many wrong passwords for this code from this address in the last minute. */
export function renderTooManyTriesPage(retryAfterSeconds: number): HostedResponse {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return page(429, 'Too many tries', `<h1>Too many tries</h1>\n<p>Please wait a minute before trying the password again.</p>`, { ...PASSWORD_HEADERS, 'retry-after': String(seconds) });
}
