import { Module } from '@nestjs/common';
import { EventsArchiveService } from './events-archive.service';
import { EventsController } from './events.controller';

/** API process: the read-only archive under /v1/events. */
@Module({ controllers: [EventsController], providers: [EventsArchiveService] })
export class EventsApiModule {}
