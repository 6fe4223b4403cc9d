import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { CreateTemplateDto, DeletedTemplateDto, ListTemplatesQueryDto, TemplateDto, TemplateListDto, UpdateTemplateDto } from './templates.dto';
import { TemplatesService } from './templates.service';

@ApiTags('Templates')
@Controller('templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Save a design template',
    description: 'The design is validated as a code\'s design. At most 100 templates per workspace (403 plan_limit_reached). Pass its id as `template_id` on POST /v1/qr-codes or POST /v1/batches.',
  })
  @ApiCreatedResponse({ type: TemplateDto })
  create(@Auth() auth: AuthContext, @Body() body: CreateTemplateDto): Promise<TemplateDto> {
    return this.templates.create(auth, body);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List design templates', description: 'Newest first; only the key\'s environment (live or test).' })
  @ApiOkResponse({ type: TemplateListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListTemplatesQueryDto): Promise<TemplateListDto> {
    return this.templates.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve a design template' })
  @ApiOkResponse({ type: TemplateDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<TemplateDto> {
    return this.templates.retrieve(auth, id);
  }

  @Patch(':id')
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Update a design template', description: 'Codes created from it earlier keep their design.' })
  @ApiOkResponse({ type: TemplateDto })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateTemplateDto): Promise<TemplateDto> {
    return this.templates.update(auth, id, body);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Delete a design template', description: 'Codes created from it keep their design.' })
  @ApiOkResponse({ type: DeletedTemplateDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedTemplateDto> {
    return this.templates.remove(auth, id);
  }
}
