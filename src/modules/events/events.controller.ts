import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { EventDto, EventListDto, ListEventsQueryDto } from './events.dto';
import { EventsArchiveService } from './events-archive.service';

@ApiTags('Events')
@Controller('events')
export class EventsController {
  constructor(private readonly archive: EventsArchiveService) {}

  @Get()
  @RequiresScope('webhooks:read')
  @ApiOperation({
    summary: 'List events',
    description:
      'The event archive of the key\'s environment (test or live), newest first: every event dispatched to at least one ' +
      'enabled endpoint of that environment in the last 30 days. Events nobody subscribed to are not recorded, so the ' +
      'list stays empty until a webhook endpoint subscribes (POST /v1/webhooks with `events`, e.g. `["*"]`); later ' +
      'events then appear here whether or not their delivery succeeds. Reading the archive never re-sends anything.',
  })
  @ApiOkResponse({ type: EventListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListEventsQueryDto): Promise<EventListDto> {
    return this.archive.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('webhooks:read')
  @ApiOperation({ summary: 'Retrieve an event', description: 'Events can be fetched for 30 days; another environment\'s event is 404.' })
  @ApiOkResponse({ type: EventDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<EventDto> {
    return this.archive.retrieve(auth, id);
  }
}
