import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../common/config/config';
import { createValidationPipe } from '../common/errors/validation';
import { newId } from '../common/ids';
import { createPino, PinoLoggerService } from '../common/logging/logger';
import { ApiModule } from './api.module';
import { API_VERSION, mountSwagger } from './openapi';
import { ScanModule } from './scan.module';
import { WorkerModule } from './worker.module';

export interface BootOptions {
  /** Where logs go: stdout for the processes, nothing in tests unless LOG_LEVEL says so. */
  logLevel?: string;
}

function adapter(opts: { trustProxy?: boolean } = {}): FastifyAdapter {
  return new FastifyAdapter({
    logger: false,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: 2 * 1024 * 1024,
    trustProxy: opts.trustProxy ?? true,
    routerOptions: { ignoreTrailingSlash: true },
  });
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
  fastify.addHook('onResponse', (req, reply, done) => {
    const path = req.url.split('?')[0];
    logger.log({ request_id: req.id, method: req.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, processName);
    done();
  });
}

export async function createApiApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'api'));
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter(), { logger, bufferLogs: false, abortOnError: false });
  instrument(app.getHttpAdapter().getInstance(), logger, 'api');
  app.setGlobalPrefix('v1', { exclude: ['health'] });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  mountSwagger(app, config);
  await app.init();
  return app;
}

export async function createScanApp(config: AppConfig, opts: BootOptions = {}): Promise<NestFastifyApplication> {
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'scan'));
  const app = await NestFactory.create<NestFastifyApplication>(ScanModule.forRoot(config), adapter(), { logger, abortOnError: false });
  instrument(app.getHttpAdapter().getInstance(), logger, 'scan');
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  await app.init();
  return app;
}

export async function createWorkerApp(config: AppConfig, opts: BootOptions = {}): Promise<INestApplicationContext> {
  const logger = new PinoLoggerService(createPino(opts.logLevel ?? config.logLevel, 'worker'));
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), { logger, abortOnError: false });
  app.enableShutdownHooks();
  await app.init();
  return app;
}
