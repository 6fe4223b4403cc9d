import type { FastifyInstance } from 'fastify';
import { ApiException } from '../common/errors/api.exception';

/**
 * Two answers for requests no operation handles, on the api process:
 * - a known path with another method (PUT /v1/qr-codes) is 405 `method_not_allowed` with an `Allow` header, not 404;
 * - `GET /` points at the documentation (a JSON body, like every other answer of the api).
 * Call before Nest registers its routes (before app.init()): the `onRoute` hook sees every route as it is added.
 */
export function registerApiFallbacks(fastify: FastifyInstance, docs: { apiBaseUrl: string }): void {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  fastify.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const source = route.url.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = routes.find((r) => r.pattern.source === `^${source}/?$`);
    if (!entry) routes.push((entry = { pattern: new RegExp(`^${source}/?$`), methods: new Set() }));
    for (const m of methods) entry.methods.add(m.toUpperCase());
  });
  fastify.addHook('onRequest', (req, reply, done) => {
    if (req.routeOptions.url !== undefined) return done();
    const path = req.url.split('?')[0];
    const allowed = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) r.methods.forEach((m) => allowed.add(m));
    if (allowed.size === 0) return done();
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    void reply.header('Allow', allow);
    done(new ApiException('method_not_allowed', `${req.method} is not allowed on ${path} (allowed: ${allow})`));
  });
  const origin = new URL(docs.apiBaseUrl).origin;
  fastify.get('/', async () => ({
    object: 'api',
    name: 'Scanlink API',
    api: docs.apiBaseUrl.replace(/\/+$/, ''),
    docs: `${origin}/docs`,
    openapi: `${origin}/docs/openapi.json`,
  }));
}
