import { Module } from '@nestjs/common';
import { ImagesController } from './images.controller';
import { ImagesModule } from './images.module';

/** Scan process: serves stored images (`/images/<key>`). */
@Module({ imports: [ImagesModule], controllers: [ImagesController] })
export class ImagesScanModule {}
