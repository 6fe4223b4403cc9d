// Test-only: runs paulmillr's `qr` decoder (ES modules only) in a plain Node worker, outside Jest's module system.
import { parentPort } from 'node:worker_threads';
import { decodeQR } from 'qr/decode.js';

parentPort.on('message', ({ id, width, height, data }) => {
  let text = null;
  let error = null;
  try {
    text = decodeQR({ width, height, data: new Uint8Array(data) });
  } catch (err) {
    error = String(err && err.message ? err.message : err);
  }
  parentPort.postMessage({ id, text, error });
});
