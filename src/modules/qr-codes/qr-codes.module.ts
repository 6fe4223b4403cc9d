import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { RenderingModule } from '../rendering/rendering.module';
import { QrCodesController } from './qr-codes.controller';
import { QrCodesService } from './qr-codes.service';

@Module({
  imports: [RenderingModule, EventsModule],
  controllers: [QrCodesController],
  providers: [QrCodesService],
  exports: [QrCodesService],
})
export class QrCodesModule {}
