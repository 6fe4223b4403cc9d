import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { FileDeliveryService } from './file-delivery.service';

/** Stored files for any process that serves them (the scan host's `/{short_code}/file`). */
@Module({ imports: [ImagesModule], providers: [FileDeliveryService], exports: [FileDeliveryService] })
export class FilesModule {}
