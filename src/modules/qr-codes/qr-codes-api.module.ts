import { Module } from '@nestjs/common';
import { QrCodesController } from './qr-codes.controller';
import { QrCodesModule } from './qr-codes.module';

/** API process: /v1/qr-codes. */
@Module({ imports: [QrCodesModule], controllers: [QrCodesController] })
export class QrCodesApiModule {}
