import { Module } from '@nestjs/common';
import { ImagesModule } from '../images/images.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';

/** API process: /v1/files. */
@Module({ imports: [ImagesModule], controllers: [FilesController], providers: [FilesService] })
export class FilesApiModule {}
