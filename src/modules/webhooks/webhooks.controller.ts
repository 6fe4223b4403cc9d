import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import {
  CreatedWebhookEndpointDto,
  CreateWebhookDto,
  DeletedWebhookEndpointDto,
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookSecretDto,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';
import { NoBody } from '../../common/http/no-body';

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @RequiresScope('webhooks:write')
  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description:
      'Registers an https URL for the given event types (or ["*"]) in the key\'s environment: it receives only that environment\'s events. ' +
      'The response carries the signing `secret`, shown only here. ' +
      'At most 10 endpoints with source `api` and 50 per integration source (403 plan_limit_reached).',
  })
  @ApiCreatedResponse({ type: CreatedWebhookEndpointDto })
  create(@Auth() auth: AuthContext, @Body() body: CreateWebhookDto): Promise<CreatedWebhookEndpointDto> {
    return this.webhooks.create(auth, body);
  }

  @Get()
  @RequiresScope('webhooks:read')
  @ApiOperation({ summary: 'List webhook endpoints', description: 'The endpoints of the key\'s environment, newest first.' })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListWebhooksQueryDto): Promise<WebhookEndpointListDto> {
    return this.webhooks.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('webhooks:read')
  @ApiOperation({ summary: 'Retrieve a webhook endpoint' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookEndpointDto> {
    return this.webhooks.retrieve(auth, id);
  }

  @Patch(':id')
  @RequiresScope('webhooks:write')
  @ApiOperation({
    summary: 'Update a webhook endpoint',
    description: '`status: enabled` re-enables a disabled or auto_disabled endpoint and resets consecutive_failures to 0; `status: disabled` stops its open deliveries.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookEndpointDto> {
    return this.webhooks.update(auth, id, body);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('webhooks:write')
  @ApiOperation({ summary: 'Delete a webhook endpoint', description: 'Its delivery records go with it; archived events stay.' })
  @ApiOkResponse({ type: DeletedWebhookEndpointDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedWebhookEndpointDto> {
    return this.webhooks.remove(auth, id);
  }

  @Post(':id/rotate-secret')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('webhooks:write')
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description: 'Returns the new secret once. For 24 hours deliveries carry two v1 signatures: the new secret first, then the previous one.',
  })
  @ApiOkResponse({ type: WebhookSecretDto })
  rotateSecret(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookSecretDto> {
    return this.webhooks.rotateSecret(auth, id);
  }

  @Post(':id/test')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('webhooks:write')
  @ApiOperation({
    summary: 'Send a test event',
    description:
      'Sends a `ping` event ({webhook_endpoint_id}) through the real delivery pipeline (archived event, delivery record, signed POST) ' +
      'and returns the delivery record after the first attempt: status_code, response_body, latency_ms.',
  })
  @ApiOkResponse({ type: WebhookDeliveryDto })
  test(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookDeliveryDto> {
    return this.webhooks.test(auth, id);
  }

  @Get(':id/deliveries')
  @RequiresScope('webhooks:read')
  @ApiOperation({ summary: 'List deliveries of an endpoint', description: 'Newest first; `status` filters.' })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  deliveries(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ListDeliveriesQueryDto): Promise<WebhookDeliveryListDto> {
    return this.webhooks.listDeliveries(auth, id, query);
  }
}
