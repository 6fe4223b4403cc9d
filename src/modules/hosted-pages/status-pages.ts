import { page } from './layout';
import type { HostedResponse } from './hosted-response';

const NOT_FOUND = page(404, 'Not found', '<h1>This code does not exist</h1>\n<p class="muted">Check the link or scan the code again.</p>');
const GONE = page(410, 'No longer active', '<h1>This code is no longer active</h1>\n<p class="muted">Its owner has switched it off.</p>');
const BAD_LINK = page(400, 'Invalid link', '<h1>This link is not valid</h1>\n<p class="muted">It is not a valid GS1 Digital Link. Check the link or scan the code again.</p>');

const PAGES = { 400: BAD_LINK, 404: NOT_FOUND, 410: GONE };
const BODIES = { 400: Buffer.from(BAD_LINK.body), 404: Buffer.from(NOT_FOUND.body), 410: Buffer.from(GONE.body) };

/** 404 (unknown or trashed code), 410 (inactive or paused) or 400 (an invalid GS1 Digital Link) page. */
export function renderStatusPage(status: 400 | 404 | 410): HostedResponse {
  const r = PAGES[status];
  return { status: r.status, headers: { ...r.headers }, body: BODIES[status] };
}
