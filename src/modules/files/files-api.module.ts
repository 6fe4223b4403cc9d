import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';

/** API process: /v1/files; FilesService is also the workspace usage source of GET /v1/me (bound in src/app). */
@Module({ imports: [ImagesModule], controllers: [FilesController], providers: [FilesService], exports: [FilesService] })
export class FilesApiModule {}
