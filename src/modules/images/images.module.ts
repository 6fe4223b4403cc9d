import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../../common/config/config';
import { ImagesService } from './images.service';
import { IMAGE_STORAGE } from './storage/image-storage';
import { createStorage } from './storage/storage.factory';

/** Image storage and logo intake, for any process that stores, serves or releases images. */
@Module({
  providers: [{ provide: IMAGE_STORAGE, useFactory: createStorage, inject: [APP_CONFIG] }, ImagesService],
  exports: [ImagesService, IMAGE_STORAGE],
})
export class ImagesModule {}
