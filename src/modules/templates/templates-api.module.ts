import { Module } from '@nestjs/common';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/** API process: /v1/templates. */
@Module({ controllers: [TemplatesController], providers: [TemplatesService] })
export class TemplatesApiModule {}
