import { Module } from '@nestjs/common';
import { BatchDownloadService } from './batch-download.service';
import { BatchesController } from './batches.controller';
import { BatchesModule } from './batches.module';

/** API process: /v1/batches (accepts batches and serves them). */
@Module({ imports: [BatchesModule], controllers: [BatchesController], providers: [BatchDownloadService] })
export class BatchesApiModule {}
