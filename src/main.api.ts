import 'reflect-metadata';
import { createApiApp } from './app/bootstrap';
import { runProcess } from './app/process';
import { closeGracefully } from './app/shutdown';

void runProcess('api', async (config) => {
  const app = await createApiApp(config);
  await app.listen(config.port, '0.0.0.0');
  return { url: `http://localhost:${config.port}`, close: () => closeGracefully(app) };
});
