import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../common/config/config';
import { setRateLimitHeaders } from '../common/auth/api-key.guard';
import { parseTrustProxy, type TrustProxy } from '../common/http/client-address';
import { createValidationPipe } from '../common/errors/validation';
import { setDocsBaseUrl } from '../common/errors/error-codes';
import { RateLimiter } from '../common/http/rate-limiter';
import { newId } from '../common/ids';
import { createPino, PinoLoggerService } from '../common/logging/logger';
import { type HotPathHandler, ScanHotPath } from '../modules/scan/scan-hot-path.service';
import { ApiModule } from './api.module';
import { registerApiFallbacks } from './api-routes';
import { API_VERSION, mountSwagger } from './openapi';
import { ScanModule } from './scan.module';
import { WorkerModule } from './worker.module';

export interface BootOptions {
  /** Where logs go: stdout for the processes, nothing in tests unless LOG_LEVEL says so. */
  logLevel?: string;
}

type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Fastify's default keep-alive timeout, set explicitly on the scan host's own server. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

interface AdapterOptions {
  /** TRUST_PROXY, parsed (client-address.ts). */
  trustProxy: TrustProxy;
  /** A request handler placed in front of Fastify: it answers what it knows and hands the rest on. */
  front?: () => HotPathHandler | undefined;
}

function adapter(opts: AdapterOptions): FastifyAdapter {
  const front = opts.front;
  return new FastifyAdapter({
    logger: false,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: 2 * 1024 * 1024,
    trustProxy: opts.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    ...(front && {
      serverFactory: (fastifyHandler: RawHandler): Server => {
        const server = createServer((req, res) => {
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
 * test (which take no body), and authentication still answers first. Malformed JSON and __proto__/constructor
 * poisoning are refused as before (Fastify's own JSON parser).
 */
function registerBodyParsers(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const { bodyLimit, onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const json = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.useBodyParser('application/json', { bodyLimit }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined);
    void json(req as Parameters<typeof json>[0], body.toString('utf8'), done);
  });
  app.useBodyParser('application/x-www-form-urlencoded', { bodyLimit }, (_req, body, done) => done(null, parseQueryString(body.toString('utf8'))));
}

/** Request-Id and version headers on every response and an access log line per request (no headers, no bodies).
 * Errors raised before routing (malformed JSON, oversized body) reach the global filter through Nest's own Fastify
 * error handler. */
function instrument(fastify: FastifyInstance, logger: PinoLoggerService, processName: string): void {
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('Request-Id', req.id);
    void reply.header('Scanlink-Version', API_VERSION);
    done();
  });
  // Error answers carry their envelope's code in the access line (`code: "invalid_request"`): what a person looks for.
  const errorCodes = new WeakMap<object, string>();
  fastify.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      const code = /^\{"error":\{"code":"([a-z_]+)"/.exec(payload)?.[1];
      if (code) errorCodes.set(req, code);
    }
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const path = req.url.split('?')[0];
    const code = errorCodes.get(req);
    logger.log({ request_id: req.id, method: req.method, path, status: reply.statusCode, ...(code && { code }), ms: Math.round(reply.elapsedTime) }, processName);
    done();
  });
}

// No enableShutdownHooks(): runProcess (src/app/process.ts) owns SIGINT/SIGTERM and calls app.close(), which runs every
// destroy and shutdown hook once. With both, a signal closed the app twice (two concurrent runs of every hook).
export async function createApiApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  setDocsBaseUrl(config.docsBaseUrl);
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'api'));
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter({ trustProxy: parseTrustProxy(config.trustProxy) }), {
    logger,
    bufferLogs: false,
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  instrument(fastify, logger, 'api');
  // decisions.md: every response carries RateLimit-*. Requests the key guard counted have them already; the others
  // (unknown routes, /health, /docs, dashboard-token routes) show the caller's anonymous window, uncounted; nothing
  // waits for it while Redis is not connected (a probe of /health then still answers at once).
  const limiter = app.get(RateLimiter, { strict: false });
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (!reply.hasHeader('RateLimit-Limit')) {
      const state = await limiter.peekAnonymous(req.ip).catch(() => undefined);
      if (state) setRateLimitHeaders(reply, state);
    }
    return payload;
  });
  registerApiFallbacks(fastify, config);
  registerBodyParsers(app);
  app.setGlobalPrefix('v1', { exclude: ['health'] });
  app.useGlobalPipes(createValidationPipe());
  mountSwagger(app, config);
  await app.init();
  return app;
}

/**
 * The scan process. GET/HEAD `/{short_code}` is answered by ScanHotPath, a plain Node handler in front of Fastify
 * (decisions.md "Processes": 70–75 % of bare Node against 55 % for a Nest route); every other request (health,
 * images, lead-form posts, 404s) goes on to Fastify and Nest.
 */
export async function createScanApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
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
  const accessLog = pino.isLevelEnabled('info') ? (line: object) => logger.log(line, 'scan') : undefined;
  front.hotPath = app.get(ScanHotPath).handler({ version: API_VERSION, accessLog });
  registerBodyParsers(app);
  app.useGlobalPipes(createValidationPipe());
  await app.init();
  return app;
}

export async function createWorkerApp(config: AppConfig, opts: BootOptions = {}): Promise<INestApplicationContext> {
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'worker'));
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger, abortOnError: false });
  await app.init();
  return app;
}
