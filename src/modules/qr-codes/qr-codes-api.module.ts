import { Module } from '@nestjs/common';
import { QrCodesController } from './qr-codes.controller';
import { QrCodesModule } from './qr-codes.module';
import { TagsController } from './tags.controller';
import { TagsService } from './tags.service';
import { TrashController } from './trash.controller';
import { TrashService } from './trash.service';

/** API process: /v1/qr-codes, /v1/trash and /v1/tags. */
@Module({ imports: [QrCodesModule], controllers: [QrCodesController, TrashController, TagsController], providers: [TrashService, TagsService] })
export class QrCodesApiModule {}
