import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { RenderingModule } from '../rendering/rendering.module';
import { QrCodeImagesService } from './qr-code-images.service';
import { QrCodesController } from './qr-codes.controller';
import { QrCodesService } from './qr-codes.service';

@Module({
  imports: [RenderingModule, ImagesModule],
  controllers: [QrCodesController],
  providers: [QrCodesService, QrCodeImagesService],
  exports: [QrCodesService],
})
export class QrCodesModule {}
