import { Module } from '@nestjs/common';
import { ImagesController } from './images.controller';
import { RenderingModule } from './rendering.module';

/** Serves stored images on the scan host (`/images/<key>`). */
@Module({ imports: [RenderingModule], controllers: [ImagesController] })
export class ImagesModule {}
