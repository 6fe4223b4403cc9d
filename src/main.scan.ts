import './app/scan-heap'; // first, before any other module allocates: V8's heap settings for the scan process
import 'reflect-metadata';
import { createScanApp } from './app/bootstrap';
import { runProcess } from './app/process';
import { closeGracefully } from './app/shutdown';

void runProcess('scan', async (config) => {
  const app = await createScanApp(config);
  await app.listen(config.scanPort, '0.0.0.0');
  return { url: `http://localhost:${config.scanPort}`, close: () => closeGracefully(app) };
});
