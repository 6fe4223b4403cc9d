/**
 * The scan encoder's thread (scan-encoding.ts starts it): raw scans in, stream entries out (scan-encoder.ts).
 * Messages from the scan process: `{salts}` (the visitor salts of the days it has loaded) and `{id, scans}` (a flat
 * array of raw scans); each `{id, scans}` is answered with `{id, …EncodedScans}`.
 */
import { parentPort } from 'node:worker_threads';
import { type DaySalts, ScanEncoder } from './scan-encoder';

const encoder = new ScanEncoder();
parentPort?.on('message', (message: { salts?: DaySalts; id?: number; scans?: unknown[] }) => {
  if (message.salts) encoder.setSalts(message.salts);
  if (message.id !== undefined && message.scans) parentPort?.postMessage({ id: message.id, ...encoder.encode(message.scans) });
});
