import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { marked } from 'marked';
import { ApiException } from '../common/errors/api.exception';

/** docs/<name>.md of this checkout or image (src/app in development, dist/src/app when built). */
function findDoc(name: string): string | null {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'docs', `${name}.md`);
    if (existsSync(file)) return file;
  }
  return null;
}

/** The error reference (docs/errors.md) as an HTML page, where `doc_url` in errors points by default. Rendered once;
 * the markdown is the repository's own, so its HTML (the `<a id>` anchors of each code) is kept. */
function errorsPage(): string | null {
  const file = findDoc('errors');
  if (!file) return null;
  const body = marked.parse(readFileSync(file, 'utf8'), { async: false });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Scanlink API errors</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top}code{background:#f4f4f4;padding:0 .2rem}</style></head><body>${body}<p><a href="/docs">API reference</a></p></body></html>`;
}

/**
 * Two answers for requests no operation handles, on the api process:
 * - a known path with another method (PUT /v1/qr-codes) is 405 `method_not_allowed` with an `Allow` header, not 404;
 * - `GET /` points at the documentation (a JSON body, like every other answer of the api); a browser (Accept: text/html)
 *   is sent to the dashboard at /app/;
 * - `GET /docs/errors` is the error reference `doc_url` points at.
 * Call before Nest registers its routes (before app.init()): the `onRoute` hook sees every route as it is added.
 */
export function registerApiFallbacks(fastify: FastifyInstance, docs: { apiBaseUrl: string }): void {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  // Paths without parameters (`/v1/qr-codes/preview`), which take precedence over a parameter in the same place.
  const fixed = new Map<string, Set<string>>();
  fastify.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const source = route.url.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = routes.find((r) => r.pattern.source === `^${source}/?$`);
    if (!entry) routes.push((entry = { pattern: new RegExp(`^${source}/?$`), methods: new Set() }));
    for (const m of methods) entry.methods.add(m.toUpperCase());
    if (!route.url.includes(':')) {
      const key = route.url.replace(/\/+$/, '');
      const set = fixed.get(key) ?? new Set<string>();
      for (const m of methods) set.add(m.toUpperCase());
      fixed.set(key, set);
    }
  });
  // preHandler: after the body is parsed, so a malformed body is still the 400 it always was.
  fastify.addHook('preHandler', (req, reply, done) => {
    const path = req.url.split('?')[0];
    // A fixed path asked with a method it does not take: GET /v1/qr-codes/preview would otherwise reach
    // GET /v1/qr-codes/:id ("No such QR code: 'preview'"). The router prefers the fixed path for its own methods, so a
    // parameter route matching a fixed path means the method is not one of them.
    const own = fixed.get(path.replace(/\/+$/, ''));
    if (req.routeOptions.url !== undefined && !(own && req.routeOptions.url.includes(':'))) return done();
    const allowed = new Set<string>();
    if (own) own.forEach((m) => allowed.add(m));
    else for (const r of routes) if (r.pattern.test(path)) r.methods.forEach((m) => allowed.add(m));
    if (allowed.size === 0) return done();
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    void reply.header('Allow', allow);
    done(new ApiException('method_not_allowed', `${req.method} is not allowed on ${path} (allowed: ${allow})`));
  });
  const origin = new URL(docs.apiBaseUrl).origin;
  const page = errorsPage();
  if (page) fastify.get('/docs/errors', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
  fastify.get('/', async (req, reply) => {
    // A browser opening the api's address lands on the dashboard; API clients (Accept: application/json, */*) keep
    // the JSON pointer below.
    if (/\btext\/html\b/.test(String(req.headers.accept ?? ''))) return reply.header('Cache-Control', 'no-store').redirect('/app/', 302);
    return {
    object: 'api',
    name: 'Scanlink API',
    api: docs.apiBaseUrl.replace(/\/+$/, ''),
    docs: `${origin}/docs`,
    openapi: `${origin}/docs/openapi.json`,
    dashboard: `${origin}/app/`,
    };
  });
}
