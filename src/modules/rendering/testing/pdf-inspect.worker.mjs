// Test-only: reads a PDF with Mozilla's pdf.js (ES modules only) in a plain Node worker, outside Jest's module system.
import { parentPort, workerData } from 'node:worker_threads';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

const doc = await getDocument({ data: new Uint8Array(workerData), isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
const page = await doc.getPage(1);
const ops = (await page.getOperatorList()).fnArray;
const imageOps = [OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintJpegXObject].filter((o) => o !== undefined);
parentPort.postMessage({
  pages: doc.numPages,
  width: page.view[2] - page.view[0],
  height: page.view[3] - page.view[1],
  paths: ops.filter((o) => o === OPS.constructPath).length,
  images: ops.filter((o) => imageOps.includes(o)).length,
});
await doc.destroy();
