import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { RenderingModule } from '../rendering/rendering.module';
import { QrCodeImagesService } from './qr-code-images.service';
import { ScanCacheInvalidator } from './scan-cache-invalidator';
import { QrCodesService } from './qr-codes.service';
import { QrCodeCreationService } from './qr-code-creation.service';

/** QR codes and their images, for the API and for batches (in the api and worker processes). */
@Module({
  imports: [RenderingModule, ImagesModule],
  providers: [QrCodesService, QrCodeImagesService, QrCodeCreationService, ScanCacheInvalidator],
  exports: [QrCodesService, QrCodeImagesService, QrCodeCreationService],
})
export class QrCodesModule {}
