import 'reflect-metadata';
import { createWorkerApp } from './app/bootstrap';
import { runProcess } from './app/process';
import { closeGracefully } from './app/shutdown';

void runProcess('worker', async (config) => {
  const app = await createWorkerApp(config);
  await app.listen(config.workerPort, '0.0.0.0');
  return { url: `http://localhost:${config.workerPort}`, close: () => closeGracefully(app, { queues: true }) };
});
