import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiException } from '../../common/errors/api.exception';
import { ImagesService } from './images.service';
import { isImageKey } from './storage/image-storage';

/** `GET /images/<key>` on the scan host: stored images, immutable (keys are content hashes). */
@ApiExcludeController()
@Controller('images')
export class ImagesController {
  constructor(private readonly images: ImagesService) {}

  @Get(':key')
  async image(@Param('key') key: string, @Req() req: FastifyRequest, @Res({ passthrough: false }) reply: FastifyReply): Promise<void> {
    // Only content-hash keys exist: anything else (dot-dot, slashes, encoded separators) is simply not found.
    if (!isImageKey(key)) throw ApiException.notFound('image', key.length <= 80 ? key : undefined);
    const etag = `"${key.slice(0, key.indexOf('.'))}"`;
    const cache = 'public, max-age=31536000, immutable';
    if (req.headers['if-none-match'] === etag) {
      // The key is the content hash: a client holding this ETag holds these bytes.
      void reply.status(304).header('ETag', etag).header('Cache-Control', cache).send();
      return;
    }
    const stored = await this.images.get(key);
    if (!stored) throw ApiException.notFound('image', key);
    void reply
      .status(200)
      .header('Content-Type', stored.contentType)
      .header('Cache-Control', cache)
      .header('ETag', etag)
      // A stored SVG is an image, never a document: no script runs even if it is opened directly.
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
      .header('X-Content-Type-Options', 'nosniff')
      .send(stored.bytes);
  }
}
