import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** Test-only: what a PDF's first page draws, read with Mozilla's pdf.js (a devDependency) from its operator list:
 * pages, page size in points, filled path constructions and raster images painted. pdf.js is ES modules only, which
 * Jest's CommonJS runtime cannot load: it runs in a worker thread. */
export function pdfDrawing(pdf: Buffer): Promise<{ pages: number; width: number; height: number; paths: number; images: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'pdf-inspect.worker.mjs'), { workerData: new Uint8Array(pdf) });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}
