/**
 * The scan encoder's thread (scan-encoding.ts starts it): raw scans in, stream entries out (scan-encoder.ts).
 * Messages from the scan process: `{salts}` (the visitor salts of the days it has loaded) and `{id, scans}` (a flat
 * array of raw scans); each `{id, scans}` is answered with `{id, …EncodedScans}`.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type DaySalts, ScanEncoder } from './scan-encoder';

/** The thread's nice value: when the cores are busy, the event loop that answers scans goes first; the encoding is
 * background work that waits for a free moment (at 250 ms a batch, it has plenty). Linux only; elsewhere, or when
 * not permitted, the thread keeps the process's priority. */
export const ENCODER_NICE = 10;
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, ENCODER_NICE);
} catch {
  // not Linux: the process's priority
}

const encoder = new ScanEncoder();
parentPort?.on('message', (message: { salts?: DaySalts; id?: number; scans?: unknown[] }) => {
  if (message.salts) encoder.setSalts(message.salts);
  if (message.id !== undefined && message.scans) parentPort?.postMessage({ id: message.id, ...encoder.encode(message.scans) });
});
