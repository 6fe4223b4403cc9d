import { Module } from '@nestjs/common';
import { EventsService } from './events.service';

/** The outbox writer: importable by any feature module, in the api, scan and worker processes alike. */
@Module({ providers: [EventsService], exports: [EventsService] })
export class EventsModule {}
