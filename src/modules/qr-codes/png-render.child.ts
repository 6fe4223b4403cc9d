/* A child process of PngRenderPool (png-render-process.ts): draws large PNGs and WebPs so their native memory
 * (the raw pixel buffers, libvips and the allocator's arenas, several hundred MB at 4,000 px) lives and dies outside
 * the api process. Its parent sends it at most IN_FLIGHT requests at once and answers each by id. */
import 'reflect-metadata';
import sharp from 'sharp';
import { ApiException } from '../../common/errors/api.exception';
import type { Design } from '../rendering/design';
import { type RasterFormat, RenderingService } from '../rendering/rendering.service';

interface Request {
  id: number;
  payload: string;
  design: Design;
  logo: Uint8Array | null;
  size: number;
  format?: RasterFormat;
}

// Nothing cached and one libvips thread: the least native memory per image.
sharp.cache(false);
sharp.concurrency(1);
const rendering = new RenderingService();

process.on('message', (req: Request) => {
  const logo = req.logo ? Buffer.from(req.logo.buffer, req.logo.byteOffset, req.logo.byteLength) : null;
  rendering.renderRaster(req.format ?? 'png', req.payload, req.design, logo, req.size).then(
    (png) => process.send!({ id: req.id, png }),
    (err: unknown) =>
      process.send!({
        id: req.id,
        error: err instanceof ApiException ? { code: err.code, message: err.message, field: err.extras.field } : { message: (err as Error).message ?? String(err) },
      }),
  );
});
process.on('disconnect', () => process.exit(0));
