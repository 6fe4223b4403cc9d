import { createHook } from 'node:async_hooks';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseQueryString } from 'node:querystring';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../common/config/config';
import { setRateLimitHeaders } from '../common/auth/api-key.guard';
import { parseTrustProxy, SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY, type TrustProxy } from '../common/http/client-address';
import { createValidationPipe } from '../common/errors/validation';
import { assertDepth, assertNoPrototypeKeys } from '../common/errors/input-rules';
import { ApiException } from '../common/errors/api.exception';
import { docUrl, setDocsBaseUrl } from '../common/errors/error-codes';
import { toEnvelope } from '../common/errors/exception.filter';
import { RateLimiter } from '../common/http/rate-limiter';
import { newId } from '../common/ids';
import { createPino, PinoLoggerService } from '../common/logging/logger';
import { envelopeCode } from '../common/logging/access-log';
import { observeRequest } from '../common/metrics/metrics';
import { McpService } from '../modules/mcp/mcp.service';
import { PerRequestAccessLog, type ScanAccessLog, ScanAccessSummary } from '../modules/scan/scan-access-log';
import { registerMultipart } from '../modules/files/multipart-upload';
import { type HotPathHandler, ScanHotPath } from '../modules/scan/scan-hot-path';
import { ApiModule } from './api.module';
import { registerApiFallbacks } from './api-routes';
import { registerDashboard } from './dashboard';
import { API_VERSION, BODY_LIMIT_BYTES, mountSwagger, UNPREFIXED_PATHS } from './openapi';
import { mountQueueBoard } from './queue-board';
import { ScanModule } from './scan.module';
import { WorkerModule } from './worker.module';

export interface BootOptions {
  /** Where logs go: stdout for the processes, nothing in tests unless LOG_LEVEL says so. */
  logLevel?: string;
  /** 2 = stderr (the MCP stdio server, whose stdout carries the protocol); stdout by default. */
  logDestination?: 1 | 2;
  /** Tests only (the scan process with NODE_ENV=test): the Scanlink-Test-Geo header sets the visitor's country and
   * region. No entry point passes it. */
  testGeoHeader?: boolean;
}

type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Fastify's default keep-alive timeout, set explicitly on the scan host's own server. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

interface AdapterOptions {
  /** TRUST_PROXY, parsed (client-address.ts). */
  trustProxy: TrustProxy;
  /** A request handler placed in front of Fastify: it answers what it knows and hands the rest on. */
  front?: () => HotPathHandler | undefined;
  /** The api's rate limiter once Nest has built it: answers made before routing show the caller's anonymous window. */
  limiter?: { current?: RateLimiter };
}

const httpLogger = new Logger('HTTP');

/** Errors Fastify answers before routing (a malformed percent-encoding, a path parameter over the length limit):
 * the envelope and the usual headers, like every other answer; on the api, RateLimit-* of the anonymous window too
 * (no hook runs for these answers). */
function frameworkError(err: Error, request: FastifyRequest, reply: FastifyReply, limiter?: RateLimiter): void {
  const id = String(request.id);
  const { status, body } = toEnvelope(err, id, httpLogger);
  void reply.code(status).headers({ ...ANSWER_HEADERS, 'Request-Id': id, 'Scanlink-Version': API_VERSION, 'Content-Type': 'application/json; charset=utf-8' });
  if (request.protocol === 'https') void reply.header('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  if (!limiter) return void reply.send(body);
  void limiter
    .peekAnonymous(request.ip)
    .catch(() => undefined)
    .then((state) => {
      if (state) setRateLimitHeaders(reply, state);
      void reply.send(body);
    });
}

/** What every answer of both hosts carries unless a route sets its own (docs/security.md): no MIME sniffing, the
 * referrer policy, and one Cache-Control (`no-store` for anything that does not say otherwise). */
const ANSWER_HEADERS: Readonly<Record<string, string>> = { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' };
const ANSWER_HEADER_LINES = Object.entries(ANSWER_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line or headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive'],
};

/** Requests Node's HTTP parser refuses (oversized headers or URL, timeouts, malformed HTTP): the envelope in a raw
 * response, since no request object exists. */
function clientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
  const id = newId('req');
  const body = JSON.stringify({ error: { code: 'invalid_request', message, doc_url: docUrl('invalid_request'), request_id: id } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${ANSWER_HEADER_LINES}Request-Id: ${id}\r\nScanlink-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function adapter(opts: AdapterOptions): FastifyAdapter {
  const front = opts.front;
  return new FastifyAdapter({
    logger: false,
    frameworkErrors: (err: Error, request: FastifyRequest, reply: FastifyReply) => frameworkError(err, request, reply, opts.limiter?.current),
    clientErrorHandler: clientError,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: opts.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    ...(front && {
      serverFactory: (fastifyHandler: RawHandler): Server => {
        // Duplicate headers are joined with ', ' instead of keeping the first: two Host headers become one value the
        // scan host refuses (400) rather than silently routing by the first.
        const server = createServer({ joinDuplicateHeaders: true }, (req, res) => {
          if (!front()?.(req, res)) fastifyHandler(req, res);
        });
        // What Fastify sets on a server it creates itself (a load balancer's idle timeout is usually 60 s).
        server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
        server.requestTimeout = 0;
        return server;
      },
    }),
  });
}

/**
 * Nest's own body parsers, except that an empty body sent with Content-Type: application/json is "no body" rather
 * than a 400 raised before routing: clients that always send the header can call DELETE, restore, rotate-secret and
 * test (which take no body), and authentication still answers first. Malformed JSON is refused as before (Fastify's
 * own JSON parser), and so are a body nested deeper than MAX_BODY_DEPTH (before any validator walks it recursively)
 * and a key named like an Object.prototype member anywhere in it (`__proto__`, `constructor`, `toString`, …: 400
 * naming the field).
 * The api reads JSON only (and multipart file uploads, registered apart): any other Content-Type with a body is a 400
 * before routing, so a cross-site HTML form (form-encoded or text/plain, which a browser sends without a CORS
 * preflight) cannot sign a browser in or change anything. The scan host also reads form-encoded bodies: lead-form and
 * password-page posts come from plain HTML forms.
 */
function registerBodyParsers(app: NestFastifyApplication, forms: 'forms' | 'json-only'): void {
  const fastify = app.getHttpAdapter().getInstance();
  const { bodyLimit } = fastify.initialConfig;
  // `__proto__` and `constructor` keys are kept by the parser (as own properties of the parsed value, which JSON.parse
  // never turns into prototypes) and refused just below with a 400 naming the field, like every other key named after
  // an Object.prototype member; Fastify's own poisoning check would only say "not valid JSON".
  const json = fastify.getDefaultJsonParser('ignore', 'ignore');
  app.useBodyParser('application/json', { bodyLimit }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined);
    void json(req as Parameters<typeof json>[0], body.toString('utf8'), (err: Error | null, parsed?: unknown) => {
      if (err) return done(err);
      // A body of `null` is not "no body": every operation that takes a body takes an object.
      if (parsed === null) return done(ApiException.invalid(undefined, 'The body must be a JSON object, not null'));
      try {
        assertDepth(parsed);
        assertNoPrototypeKeys(parsed);
      } catch (refused) {
        return done(refused as Error);
      }
      done(null, parsed);
    });
  });
  if (forms === 'forms') {
    app.useBodyParser('application/x-www-form-urlencoded', { bodyLimit }, (_req, body, done) => done(null, parseQueryString(body.toString('utf8'))));
  } else {
    fastify.removeContentTypeParser('text/plain');
  }
}

/** A graceful close ends every keep-alive connection as soon as it is idle. Fastify closes the connections idle when
 * close() starts; one whose response was still being written then (its client may already hold every byte) would
 * otherwise stay open until its keep-alive timeout, 72 s, holding up shutdown and a rolling deploy. */
function closeConnectionsOnShutdown(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done) => {
    const server = fastify.server;
    if (!server.listening) return done();
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
    done();
  });
}

/** Request-Id and version headers on every response, an access log line per request (no headers, no bodies) and the
 * request duration metric by route template.
 * Errors raised before routing (malformed JSON, oversized body) reach the global filter through Nest's own Fastify
 * error handler. */

function instrument(fastify: FastifyInstance, logger: PinoLoggerService, processName: string): void {
  closeConnectionsOnShutdown(fastify);
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('Request-Id', req.id);
    void reply.header('Scanlink-Version', API_VERSION);
    done();
  });
  // Security headers on every answer Fastify writes (the scan host's hot path writes its own, precomputed): nosniff,
  // a referrer policy, one Cache-Control (no-store unless the route set one), HSTS when the request arrived over https (directly, or per X-Forwarded-Proto from a trusted
  // proxy: Fastify's request.protocol honours TRUST_PROXY), and on the api's HTML (Swagger UI, the error reference,
  // Bull Board) a CSP that forbids framing. A route's own value is kept.
  fastify.addHook('onSend', (req, reply, payload, done) => {
    for (const [name, value] of Object.entries(ANSWER_HEADERS)) if (!reply.hasHeader(name)) void reply.header(name, value);
    if (req.protocol === 'https' && !reply.hasHeader('strict-transport-security')) void reply.header('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    if (processName === 'api' && String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      const csp = reply.getHeader('content-security-policy');
      if (!csp) void reply.header('Content-Security-Policy', "frame-ancestors 'none'");
      else if (!String(csp).includes('frame-ancestors')) void reply.header('Content-Security-Policy', `${String(csp)}; frame-ancestors 'none'`);
    }
    done(null, payload);
  });
  // Error answers carry their envelope's code in the access line (`code: "invalid_request"`): what a person looks for.
  const errorCodes = new WeakMap<object, string>();
  fastify.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode >= 400) {
      const code = envelopeCode(payload);
      if (code) errorCodes.set(req, code);
    }
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const path = req.url.split('?')[0];
    const code = errorCodes.get(req);
    logger.log({ request_id: req.id, method: req.method, path, status: reply.statusCode, ...(code && { code }), ms: Math.round(reply.elapsedTime) }, processName);
    observeRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime);
    done();
  });
}

// No enableShutdownHooks(): runProcess (src/app/process.ts) owns SIGINT/SIGTERM and calls app.close(), which runs every
// destroy and shutdown hook once. With both, a signal closed the app twice (two concurrent runs of every hook).
export async function createApiApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  setDocsBaseUrl(config.docsBaseUrl);
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'api', opts.logDestination));
  // Known once Nest has built it; answers made before routing read the anonymous window through it.
  const limiterRef: { current?: RateLimiter } = {};
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter({ trustProxy: parseTrustProxy(config.trustProxy), limiter: limiterRef }), {
    logger,
    bufferLogs: false,
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  instrument(fastify, logger, 'api');
  // Every response carries RateLimit-* (docs/api.md). Requests the key guard counted have them already; the others
  // (unknown routes, /health, /docs, dashboard-token routes) show the caller's anonymous window, uncounted; nothing
  // waits for it while Redis is not connected (a probe of /health then still answers at once).
  const limiter = app.get(RateLimiter, { strict: false });
  limiterRef.current = limiter;
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (!reply.hasHeader('RateLimit-Limit')) {
      const state = await limiter.peekAnonymous(req.ip).catch(() => undefined);
      if (state) setRateLimitHeaders(reply, state);
    }
    return payload;
  });
  registerApiFallbacks(fastify, config);
  registerDashboard(fastify, config);
  registerBodyParsers(app, 'json-only');
  await registerMultipart(fastify);
  app.setGlobalPrefix('v1', { exclude: UNPREFIXED_PATHS });
  await mountQueueBoard(app, config.adminToken);
  app.useGlobalPipes(createValidationPipe());
  app.get(McpService).describe(mountSwagger(app, config));
  await app.init();
  return app;
}

const NEXT_TICK_WARM_UP = 20_000;
const noop = (): void => undefined;
/** One of Node's tick objects, held for the life of the process (warmNextTick). */
let keptTick: object | undefined;

/**
 * Has V8 optimize `process.nextTick` before Nest boots, and keeps the tick objects' hidden classes alive. Node's HTTP
 * server calls `nextTick` about seven times per request (stream ends, destroys, close events), and each call builds a
 * tick object from an object literal whose first keys are symbols.
 * - When its first optimization happens only after the boot, every tick object is built through V8's slow runtime
 *   path (about 230 ns a call instead of 40 ns; `nextTick` was 7 % of the scan process's busy time against 0.8 % in a
 *   bare server). Optimized before the boot, it stays fast. So no-op callbacks are queued once at start-up.
 * - The optimized code holds the literal's maps only weakly. A full collection at a moment when no tick object is
 *   alive frees them; the literal then makes new maps, its feedback turns megamorphic, and from then on the
 *   optimized code calls the runtime for each key of each tick object (`Runtime_DefineKeyedOwnPropertyInLiteral`): 6–7
 *   µs more CPU per redirect, for the rest of the process's life. On a busy machine every scan process fell into it.
 *   One tick object kept alive keeps those maps alive. The only way to reach one is an async hook's `init`, enabled
 *   for this one call and disabled at once (no hook stays installed: docs/scan-host.md "Async hooks stay off").
 * Measured with `npm run bench:scan-cpu` (docs/scan-host.md "The same build, started four times").
 */
function warmNextTick(): void {
  const hook = createHook({
    init(_asyncId: number, type: string, _triggerAsyncId: number, resource: object) {
      if (type === 'TickObject') keptTick ??= resource;
    },
  });
  hook.enable();
  process.nextTick(noop);
  hook.disable();
  for (let i = 0; i < NEXT_TICK_WARM_UP; i++) process.nextTick(noop);
}

/**
 * The scan process. GET/HEAD `/{short_code}` is answered by ScanHotPath, a plain Node handler in front of Fastify
 * (measured: 70–75 % of bare Node against 55 % for a Nest route, see docs/scan-host.md); every other request (health,
 * images, lead-form posts, 404s) goes on to Fastify and Nest.
 */
export async function createScanApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  warmNextTick();
  setDocsBaseUrl(config.docsBaseUrl);
  const pino = createPino(opts.logLevel ?? config.logLevel, 'scan');
  const logger = new PinoLoggerService(pino);
  // Filled once Nest has built the services the handler needs; until then (no port is open yet) Nest gets everything.
  const front: { hotPath?: HotPathHandler } = {};
  const app = await NestFactory.create<NestFastifyApplication>(
    ScanModule.forRoot(config),
    adapter({ trustProxy: parseTrustProxy(config.trustProxy), front: () => front.hotPath }),
    { logger, abortOnError: false },
  );
  instrument(app.getHttpAdapter().getInstance(), logger, 'scan');
  front.hotPath = app.get(ScanHotPath).handler({ version: API_VERSION, access: hotPathAccessLog(pino, logger), testGeoHeader: opts.testGeoHeader });
  registerBodyParsers(app, 'forms');
  app.useGlobalPipes(createValidationPipe());
  await app.init();
  return app;
}

/**
 * The hot path's access record (docs/scan-host.md "Access log"): at `info` (the default) one summary line every 10 s
 * with counts per path and status; at `debug` or `trace` the line per request Nest's routes write; nothing above.
 */
function hotPathAccessLog(pino: ReturnType<typeof createPino>, logger: PinoLoggerService): ScanAccessLog | undefined {
  if (pino.isLevelEnabled('debug')) return new PerRequestAccessLog((line) => logger.log(line, 'scan'));
  if (!pino.isLevelEnabled('info')) return undefined;
  const summary = new ScanAccessSummary((line) => logger.log(line, 'scan'));
  summary.start();
  return summary;
}

/** The worker: Bull processors and schedules, and an HTTP server (WORKER_PORT, opened by main.worker.ts) with health
 * and metrics only. */
export async function createWorkerApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  // The worker's own answers (health, metrics, unknown routes) point `doc_url` at the configured docs, as the api does.
  setDocsBaseUrl(config.docsBaseUrl);
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'worker'));
  const app = await NestFactory.create<NestFastifyApplication>(WorkerModule.forRoot(config), adapter({ trustProxy: false }), { logger, abortOnError: false });
  instrument(app.getHttpAdapter().getInstance(), logger, 'worker');
  await app.init();
  return app;
}
