import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import type { HostedResponse } from './hosted-response';

/** Every value that reaches a page goes through here (the `escape-html` package: & < > " '). */
export const esc = (value: unknown): string => escapeHtml(value === null || value === undefined ? '' : String(value));

const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:', 'sms:']);

/** The URL when its scheme is http(s), mailto, tel or sms; null otherwise (javascript:, data:, relative, garbage). */
export function safeHref(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 4000) return null;
  try {
    return LINK_SCHEMES.has(new URL(value.trim()).protocol) ? value.trim() : null;
  } catch {
    return null;
  }
}

/** The one stylesheet: inline (no third-party or extra request), allowed by its hash, so no inline `style=""` anywhere. */
export const PAGE_CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#16181d;--muted:#4a4f5a;--line:#d5d8de;--accent:#0b57d0;--accent-fg:#fff;--error:#b3261e;--focus:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#111317;--card:#1b1e24;--fg:#f1f3f6;--muted:#c2c7d0;--line:#3a3f48;--accent:#8ab4f8;--accent-fg:#0b1220;--error:#ffb4ab;--focus:#ffb4ab}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:36rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.25rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem;overflow-wrap:anywhere}
p,dd,li{overflow-wrap:anywhere}
.muted{color:var(--muted)}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
dl{margin:0}
dt{font-weight:600;margin-top:.75rem}
dd{margin:0}
.secret{font:1.1rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;user-select:all;-webkit-user-select:all;background:var(--bg);border:1px solid var(--line);border-radius:.375rem;padding:.25rem .5rem;display:inline-block;overflow-wrap:anywhere}
ul.links{list-style:none;margin:1rem 0 0;padding:0}
ul.links li+li{margin-top:.75rem}
ul.menu{list-style:none;margin:0;padding:0}
a{color:var(--accent)}
.button,button{display:block;width:100%;min-height:3rem;padding:.75rem 1rem;border:0;border-radius:.5rem;background:var(--accent);color:var(--accent-fg);font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.button.secondary{background:transparent;color:var(--accent);border:2px solid var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.menu-item{display:flex;justify-content:space-between;gap:1rem;border-top:1px solid var(--line);padding:.625rem 0}
.menu-item>div{flex:1 1 auto;min-width:0;overflow-wrap:anywhere}
.menu-item p{margin:.125rem 0 0}
.price{flex:0 1 auto;font-weight:600;text-align:right;max-width:45%;overflow-wrap:anywhere}
.field{margin-top:1rem}
label{display:block;font-weight:600;margin-bottom:.25rem;overflow-wrap:anywhere}
input[type=text],input[type=email],input[type=tel],input[type=number],input[type=date],input[type=password],textarea{display:block;width:100%;min-height:2.75rem;padding:.5rem .625rem;border:1px solid var(--muted);border-radius:.375rem;background:var(--card);color:var(--fg);font:inherit}
textarea{min-height:7rem;resize:vertical}
.check{display:flex;gap:.625rem;align-items:flex-start}
.check input{width:1.375rem;height:1.375rem;margin:.125rem 0 0;flex:none}
.check label{font-weight:400;margin:0;min-width:0}
.req{color:var(--error)}
[aria-invalid=true]{border-color:var(--error);border-width:2px}
.error{color:var(--error);font-weight:600;margin:.25rem 0 0}
.summary{border:2px solid var(--error);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}
.summary h2{margin:0 0 .25rem;font-size:1rem}
.summary ul{margin:0;padding-left:1.25rem}
.actions{margin-top:1.5rem}
.hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
.media{display:block;width:100%;max-width:100%;height:auto;margin:1rem 0;border-radius:.5rem}
.pdf{display:block;width:100%;height:70vh;margin:1rem 0;border:1px solid var(--line);border-radius:.5rem}
footer{margin-top:1.5rem;text-align:center;font-size:.875rem;color:var(--muted)}
`.trim();

/** Computed once: the CSP names this exact stylesheet, so nothing else (injected or inline) can style or script. */
export const PAGE_CSS_HASH = `sha256-${createHash('sha256').update(PAGE_CSS, 'utf8').digest('base64')}`;

export const PAGE_CSP = [
  "default-src 'none'",
  `style-src '${PAGE_CSS_HASH}'`,
  'img-src data:',
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every HTML page (the CSP allows no script at all: there is none). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  // As every answer of both hosts (docs/security.md): a link followed from a page tells the destination the scan host's
  // origin only, never the short code. The password pages send no referrer at all (link-control-pages.ts).
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
});

/** Headers of the .vcf/.ics downloads: never rendered as a document, never framed. */
export const DOWNLOAD_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** A full document around `body` (already-escaped HTML). */
export function page(status: number, title: string, body: string, extraHeaders: Record<string, string> = {}): HostedResponse {
  const headers = { ...PAGE_HEADERS, ...extraHeaders };
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="${esc(headers['referrer-policy'])}">
<title>${esc(title)}</title>
<link rel="icon" href="data:,">
<style>${PAGE_CSS}</style>
</head>
<body>
<main>
<div class="card">
${body}
</div>
</main>
</body>
</html>
`;
  return { status, headers, body: html };
}

export interface LinkButton {
  label: unknown;
  href?: unknown;
  secondary?: boolean;
  /** A same-host download built by the page itself (`/{code}.vcf`), not a stored URL. */
  download?: string;
}

/** A list of link buttons; stored URLs whose scheme is not http(s)/mailto/tel/sms are dropped. */
export function linkButtons(links: LinkButton[]): string {
  const items = links
    .map((l) => {
      const href = l.download ?? safeHref(l.href);
      if (!href) return '';
      return `<li><a class="button${l.secondary ? ' secondary' : ''}" href="${esc(href)}"${l.download ? ' download' : ''}>${esc(l.label)}</a></li>`;
    })
    .filter(Boolean);
  return items.length ? `<ul class="links">\n${items.join('\n')}\n</ul>` : '';
}

/** A definition list of the rows whose value (already-escaped HTML) is not empty. */
export function details(rows: Array<[string, string | null]>): string {
  const items = rows.filter(([, v]) => v !== null && v !== '').map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`);
  return items.length ? `<dl>\n${items.join('\n')}\n</dl>` : '';
}

/** A file download (`.vcf`, `.ics`): an attachment named after `name`, sandboxed, never cached. */
export function downloadResponse(body: string, contentType: string, name: string, ext: string): HostedResponse {
  // At most 60 characters, counted by code point so that an emoji is never cut in half.
  const short = Array.from(name).slice(0, 60).join('');
  // ASCII fallback for old clients: accents dropped (é → e), anything else a dash.
  const ascii = short.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'download';
  // RFC 8187: encodeURIComponent leaves ' ( ) * as they are, which a filename*= value may not hold.
  const utf8 = encodeURIComponent(`${short}.${ext}`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return {
    status: 200,
    headers: {
      'content-type': contentType,
      'content-disposition': `attachment; filename="${ascii}.${ext}"; filename*=UTF-8''${utf8}`,
      'content-security-policy': DOWNLOAD_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'cache-control': 'no-store',
    },
    body,
  };
}
