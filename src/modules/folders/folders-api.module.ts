import { Module } from '@nestjs/common';
import { FoldersController } from './folders.controller';
import { FoldersService } from './folders.service';

/** API process: /v1/folders. */
@Module({ controllers: [FoldersController], providers: [FoldersService], exports: [FoldersService] })
export class FoldersApiModule {}
