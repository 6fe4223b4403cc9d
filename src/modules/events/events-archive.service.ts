import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { ListEnvelope } from '../../common/http/list';
import { pageByCreatedAt } from '../../common/http/pagination';
import { hasPrefix } from '../../common/ids';
import { EventRecord } from './event.entity';
import { EVENT_RETENTION_DAYS } from './events-retention';
import type { EventDto, ListEventsQueryDto } from './events.dto';

/** The archive is the stored delivery bodies: what receivers got is exactly what the API shows. */
export function presentEvent(e: EventRecord): EventDto {
  return JSON.parse(e.payload) as EventDto;
}

/** Read-only event archive (GET /events): only what was dispatched, for 30 days, in the caller's environment. */
@Injectable()
export class EventsArchiveService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
  ) {}

  private cutoff(): Date {
    return new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000);
  }

  list(auth: AuthContext, query: ListEventsQueryDto): Promise<ListEnvelope<EventDto>> {
    const where = {
      organizationId: auth.organizationId,
      environment: auth.environment,
      createdAt: { $gte: this.cutoff() },
      ...(query.type ? { type: query.type } : {}),
    };
    return pageByCreatedAt(this.em, EventRecord, where as never, { ...query }, this.cursors, presentEvent);
  }

  async retrieve(auth: AuthContext, id: string): Promise<EventDto> {
    const row = hasPrefix(id, 'evt')
      ? await this.em.findOne(EventRecord, { id, organizationId: auth.organizationId, environment: auth.environment, createdAt: { $gte: this.cutoff() } })
      : null;
    if (!row) throw ApiException.notFound('event', id);
    return presentEvent(row);
  }
}
