import { DynamicModule, Global, Module, type Provider, type Type } from '@nestjs/common';
import { EVENT_SUBSCRIBERS, type EventSubscriber } from './event-subscriber';
import { EventsService } from './events.service';

/**
 * The outbox writer, global in every process. The process's root module binds the subscribers (webhooks) here, so
 * events/ never imports them: `EventsModule.forRoot({ imports: [WebhookOutboxModule], subscribers: [WebhookOutbox] })`.
 */
@Global()
@Module({})
export class EventsModule {
  static forRoot(opts: { imports?: DynamicModule['imports']; subscribers: Array<Type<EventSubscriber>> }): DynamicModule {
    const bind: Provider = {
      provide: EVENT_SUBSCRIBERS,
      useFactory: (...subscribers: EventSubscriber[]) => subscribers,
      inject: opts.subscribers,
    };
    return { module: EventsModule, imports: opts.imports ?? [], providers: [bind, EventsService], exports: [EventsService] };
  }
}
