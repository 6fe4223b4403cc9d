/**
 * Imported first by main.scan.ts, before any other module allocates: turns off V8's allocation-site pretenuring in
 * the scan process.
 *
 * V8 watches how many objects of each allocation site (an object or array literal) survive a young-generation
 * collection; above 85 % it allocates that site's objects directly in the old generation from then on. In the scan
 * process a burst at start-up can make per-scan objects look long-lived (scans waiting in the buffer for their flush
 * to Redis survive a collection that happens during the flush), and the decision then holds for the life of the
 * process: every scan allocates in the old generation, what it points to is promoted at each young collection, and
 * the old generation fills and is marked and compacted every second or two. Measured with bench:scan (docs/scan-host.md
 * "Garbage collection"): about one process start in four fell into that state, at 31–34 µs of CPU per redirect
 * instead of 16–18 µs, which is the difference between 43 % and 70 % of a bare Node server. With pretenuring off, the
 * per-scan objects stay in the young generation, where they die cheaply; none of 18 starts fell into it.
 *
 * Set at run time rather than as a command-line flag so that every way of starting the process (npm run local,
 * npm run start:scan, docker compose) gets it without extra configuration.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-allocation-site-pretenuring');
