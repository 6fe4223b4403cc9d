import { Module } from '@nestjs/common';

/** The scan host's hot path and hosted pages (built in src/modules/scan). */
@Module({})
export class ScanHostModule {}
