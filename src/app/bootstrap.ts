import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../common/config/config';
import { createValidationPipe } from '../common/errors/validation';
import { newId } from '../common/ids';
import { createPino, PinoLoggerService } from '../common/logging/logger';
import { type HotPathHandler, ScanHotPath } from '../modules/scan/scan-hot-path.service';
import { ApiModule } from './api.module';
import { API_VERSION, mountSwagger } from './openapi';
import { ScanModule } from './scan.module';
import { WorkerModule } from './worker.module';

export interface BootOptions {
  /** Where logs go: stdout for the processes, nothing in tests unless LOG_LEVEL says so. */
  logLevel?: string;
}

type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface AdapterOptions {
  /** Fastify's trustProxy: true, or a proxy-addr list such as `loopback,10.0.0.0/8`. */
  trustProxy?: boolean | string;
  /** A request handler placed in front of Fastify: it answers what it knows and hands the rest on. */
  front?: () => HotPathHandler | undefined;
}

function adapter(opts: AdapterOptions = {}): FastifyAdapter {
  const front = opts.front;
  return new FastifyAdapter({
    logger: false,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: 2 * 1024 * 1024,
    trustProxy: opts.trustProxy ?? true,
    routerOptions: { ignoreTrailingSlash: true },
    ...(front && {
      serverFactory: (fastifyHandler: RawHandler): Server =>
        createServer((req, res) => {
          if (!front()?.(req, res)) fastifyHandler(req, res);
        }),
    }),
  });
}

/** TRUST_PROXY as Fastify takes it (the scan host's lead form sees the same client address as the hot path). */
const fastifyTrustProxy = (value: string): boolean | string => {
  const v = value.trim().toLowerCase();
  return v === 'true' || v === '*' ? true : v === 'false' || v === '' ? false : value;
};

/** Request-Id and version headers on every response and an access log line per request (no headers, no bodies).
 * Errors raised before routing (malformed JSON, oversized body) reach the global filter through Nest's own Fastify
 * error handler. */
function instrument(fastify: FastifyInstance, logger: PinoLoggerService, processName: string): void {
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('Request-Id', req.id);
    void reply.header('Scanlink-Version', API_VERSION);
    done();
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const path = req.url.split('?')[0];
    logger.log({ request_id: req.id, method: req.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, processName);
    done();
  });
}

// No enableShutdownHooks(): runProcess (src/app/process.ts) owns SIGINT/SIGTERM and calls app.close(), which runs every
// destroy and shutdown hook once. With both, a signal closed the app twice (two concurrent runs of every hook).
export async function createApiApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'api'));
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter(), { logger, bufferLogs: false, abortOnError: false });
  instrument(app.getHttpAdapter().getInstance(), logger, 'api');
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
  const pino = createPino(opts.logLevel ?? config.logLevel, 'scan');
  const logger = new PinoLoggerService(pino);
  // Filled once Nest has built the services the handler needs; until then (no port is open yet) Nest gets everything.
  const front: { hotPath?: HotPathHandler } = {};
  const app = await NestFactory.create<NestFastifyApplication>(
    ScanModule.forRoot(config),
    adapter({ trustProxy: fastifyTrustProxy(config.trustProxy), front: () => front.hotPath }),
    { logger, abortOnError: false },
  );
  instrument(app.getHttpAdapter().getInstance(), logger, 'scan');
  const accessLog = pino.isLevelEnabled('info') ? (line: object) => logger.log(line, 'scan') : undefined;
  front.hotPath = app.get(ScanHotPath).handler({ version: API_VERSION, accessLog });
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
