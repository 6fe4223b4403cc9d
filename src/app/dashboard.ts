import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from '@nestjs/common';
import { ApiException } from '../common/errors/api.exception';
import { toEnvelope } from '../common/errors/exception.filter';

/** Hashed build output (`assets/<name>-<hash>.<ext>`): the content never changes under one name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html (it names the current hashes) is revalidated on every visit. */
export const NO_CACHE = 'no-cache';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** dist/web of this checkout or image (the api runs from src/app in development and tests, dist/src/app when built). */
export function findDashboardBuild(): string | null {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'web');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

function load(root: string): Map<string, Asset> {
  const files = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path).split(sep).join('/'), { body: readFileSync(path), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  };
  walk(root);
  return files;
}

/**
 * The two <style> elements react-aria-components adds to the page at run time (usePress: touch-action on pressable
 * elements; usePreventScroll under a modal dialog), exactly as it writes them. Allowed by hash, so no other inline
 * style is; a react-aria upgrade that changes them shows up as a CSP refusal in the browser tests.
 */
const RUNTIME_STYLES = [
  '@layer {\n  [data-react-aria-pressable] {\n    touch-action: pan-x pan-y pinch-zoom;\n  }\n}',
  '@layer {\n  * {\n    overscroll-behavior: contain;\n  }\n}',
];
const styleHashes = RUNTIME_STYLES.map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`).join(' ');

/**
 * The dashboard's Content-Security-Policy: scripts and styles from the app's own origin only (no inline script, no
 * eval; inline styles only the two above, by hash), API calls to the same origin, images from the app, the image host (codes' stored images) and blob:/data: (the
 * design editor's previews drawn by the API), no framing, no plugins, forms only to the app.
 */
export function dashboardCsp(imageBaseUrl: string): string {
  const images = new URL(imageBaseUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${styleHashes}`,
    `img-src 'self' data: blob: ${images}`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the dashboard (web/, built into dist/web by `npm run build`) at /app/: hashed assets cached for a year,
 * index.html for every other path under /app/ (the app's own routes, e.g. /app/codes/qr_…) and never cached, each answer
 * with the dashboard CSP. The files are read once at start-up (a few hundred kB), so no request touches the disk and no
 * path from a request ever reaches the file system. `GET /` sends browsers (Accept: text/html) to /app/; API clients
 * keep the JSON pointer (see api-routes.ts).
 */
const logger = new Logger('Dashboard');

export function registerDashboard(fastify: FastifyInstance, opts: { imageBaseUrl: string; root?: string | null }): void {
  const root = opts.root === undefined ? findDashboardBuild() : opts.root;
  const files = root ? load(root) : new Map<string, Asset>();
  const index = files.get('index.html');
  const csp = dashboardCsp(opts.imageBaseUrl);

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = decodeURIComponent((req.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    void reply.header('Content-Security-Policy', csp);
    const asset = path.startsWith('assets/') ? files.get(path) : undefined;
    if (asset) return reply.header('Cache-Control', IMMUTABLE).type(asset.type).send(asset.body);
    if (path.startsWith('assets/') || /\.[a-z0-9]{1,5}$/i.test(path)) {
      // A missing file (an old hash after a deploy) is a 404 in the error envelope, not index.html: a script tag must
      // not get HTML.
      const { status, body } = toEnvelope(ApiException.notFound('dashboard file', `/app/${path.slice(0, 200)}`), String(req.id), logger);
      return reply.code(status).header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(body);
    }
    if (!index) {
      return reply
        .code(503)
        .header('Cache-Control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built. Run `npm run build` (it builds web/ into dist/web) and restart the api.');
    }
    return reply.header('Cache-Control', NO_CACHE).type('text/html; charset=utf-8').send(index.body);
  };
  // The api ignores trailing slashes when routing: `/app` and `/app/` both land here; only the first is redirected.
  fastify.get('/app', async (req, reply) => (req.url.split('?')[0].endsWith('/') ? serve(req, reply) : reply.redirect('/app/', 302)));
  fastify.get('/app/*', serve);
}

