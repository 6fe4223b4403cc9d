import { Module } from '@nestjs/common';
import { DomainsScanModule } from '../domains/domains-scan.module';
import { FilesModule } from '../files/files.module';
import { ScanFileController } from './scan-file.controller';
import { ScanHostModule } from './scan-host.module';
import { ScanUnlockController } from './scan-unlock.controller';

/** `/{short_code}/file`: the stored bytes of file, audio and video codes, beside the hot path's pages; and
 * `POST /{short_code}/unlock`, the password page's form (link controls). */
@Module({ imports: [ScanHostModule, DomainsScanModule, FilesModule], controllers: [ScanFileController, ScanUnlockController] })
export class ScanFilesModule {}
