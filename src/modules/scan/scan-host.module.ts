import { Module } from '@nestjs/common';
import { DomainsScanModule } from '../domains/domains-scan.module';
import { ScanBuffer } from './scan-buffer';
import { ScanCodeCache } from './scan-code-cache';
import { ScanHotPath } from './scan-hot-path';

/** The scan host's hot path (GET/HEAD `/{short_code}`, mounted in front of Nest by createScanApp), its code cache
 * and the scan buffer that feeds the worker. */
@Module({
  imports: [DomainsScanModule],
  providers: [ScanCodeCache, ScanBuffer, ScanHotPath],
  exports: [ScanCodeCache, ScanHotPath, ScanBuffer],
})
export class ScanHostModule {}
