import { page } from '../qr-codes/targets/pages/layout';
import type { HostedResponse } from '../qr-codes/targets/target-handler';

const NOT_FOUND = page(404, 'Not found', '<h1>This code does not exist</h1>\n<p class="muted">Check the link or scan the code again.</p>');
const GONE = page(410, 'No longer active', '<h1>This code is no longer active</h1>\n<p class="muted">Its owner has switched it off.</p>');

const NOT_FOUND_BODY = Buffer.from(NOT_FOUND.body);
const GONE_BODY = Buffer.from(GONE.body);

/** 404 (unknown or trashed code) or 410 (inactive or paused) page. */
export function renderStatusPage(status: 404 | 410): HostedResponse {
  const r = status === 410 ? GONE : NOT_FOUND;
  return { status: r.status, headers: { ...r.headers }, body: status === 410 ? GONE_BODY : NOT_FOUND_BODY };
}
