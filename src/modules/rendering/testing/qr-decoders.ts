import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';

/** Test-only: decodes a rendered PNG with two independent QR decoders (zxing-cpp through zxing-wasm, and paulmillr's
 * pure-JS `qr`). Both are devDependencies, loaded lazily so nothing here runs in production. */

const nodeRequire = createRequire(__filename);

type ZxingReader = typeof import('zxing-wasm/reader');
let zxing: Promise<ZxingReader> | null = null;

function loadZxing(): Promise<ZxingReader> {
  zxing ??= (async () => {
    const mod = nodeRequire('zxing-wasm/reader') as ZxingReader;
    const wasmPath = join(nodeRequire.resolve('zxing-wasm/reader'), '../../../reader/zxing_reader.wasm');
    const wasmBinary = readFileSync(wasmPath);
    // Hand it the bundled wasm: otherwise it tries to fetch it from a CDN.
    await mod.prepareZXingModule({
      overrides: { wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer },
      fireImmediately: true,
    });
    return mod;
  })();
  return zxing;
}

/** PNG bytes → the texts both decoders read (null when a decoder finds nothing). Transparent images are flattened
 * onto white first, as a printed code would be. */
export async function decodeBoth(png: Buffer): Promise<{ zxing: string | null; qr: string | null }> {
  const raw = await sharp(png).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { width: raw.info.width, height: raw.info.height, data: new Uint8ClampedArray(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength) };
  const reader = await loadZxing();
  const results = await reader.readBarcodes(image, { formats: ['QRCode'], maxNumberOfSymbols: 1 });
  const zx = results.find((r) => r.isValid)?.text ?? null;

  const q = await decodeWithQr(raw.info.width, raw.info.height, raw.data);
  return { zxing: zx, qr: q };
}

// `qr` ships as ES modules only, which Jest's CommonJS runtime cannot load: it runs in a worker thread instead.
let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, (text: string | null) => void>();

function decodeWithQr(width: number, height: number, rgba: Buffer): Promise<string | null> {
  if (!worker) {
    worker = new Worker(join(__dirname, 'qr-decode.worker.mjs'));
    worker.unref();
    worker.on('message', (m: { id: number; text: string | null }) => {
      pending.get(m.id)?.(m.text);
      pending.delete(m.id);
    });
  }
  const id = nextId++;
  const data = new Uint8Array(rgba.byteLength);
  data.set(rgba);
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker!.postMessage({ id, width, height, data: data.buffer }, [data.buffer]);
  });
}

/** Stops the decoder worker (call from afterAll). */
export async function closeDecoders(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}
