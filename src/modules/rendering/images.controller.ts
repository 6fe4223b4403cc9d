import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiException } from '../../common/errors/api.exception';
import { IMAGE_STORAGE, ImageStorage, isImageKey } from './storage/image-storage';

/** `GET /images/<key>` on the scan host: stored images, immutable (keys are content hashes). */
@ApiExcludeController()
@Controller('images')
export class ImagesController {
  constructor(@Inject(IMAGE_STORAGE) private readonly storage: ImageStorage) {}

  @Get(':key')
  async image(@Param('key') key: string, @Res({ passthrough: false }) reply: FastifyReply): Promise<void> {
    // Only content-hash keys exist: anything else (dot-dot, slashes, encoded separators) is simply not found.
    const stored = isImageKey(key) ? await this.storage.get(key) : null;
    if (!stored) throw ApiException.notFound('image', key.length <= 80 ? key : undefined);
    void reply
      .status(200)
      .header('Content-Type', stored.contentType)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('ETag', `"${key.slice(0, key.indexOf('.'))}"`)
      // A stored SVG is an image, never a document: no script runs even if it is opened directly.
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
      .header('X-Content-Type-Options', 'nosniff')
      .send(stored.bytes);
  }
}
