import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config';
import { RenderingService } from './rendering.service';
import { IMAGE_STORAGE } from './storage/image-storage';
import { createStorage } from './storage/storage.factory';

/** Rendering and image storage; import it wherever codes are created, updated, downloaded or batched. */
@Module({
  providers: [{ provide: IMAGE_STORAGE, useFactory: createStorage, inject: [APP_CONFIG] }, RenderingService],
  exports: [RenderingService, IMAGE_STORAGE],
})
export class RenderingModule {}
