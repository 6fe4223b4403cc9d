import { Module } from '@nestjs/common';
import { QrCodesController } from './qr-codes.controller';
import { QrCodesModule } from './qr-codes.module';
import { TrashController } from './trash.controller';
import { TrashService } from './trash.service';

/** API process: /v1/qr-codes and /v1/trash. */
@Module({ imports: [QrCodesModule], controllers: [QrCodesController, TrashController], providers: [TrashService] })
export class QrCodesApiModule {}
