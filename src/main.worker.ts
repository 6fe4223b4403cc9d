import 'reflect-metadata';
import { createWorkerApp } from './app/bootstrap';
import { runProcess } from './app/process';

void runProcess('worker', async (config) => {
  const app = await createWorkerApp(config);
  return { close: () => app.close() };
});
