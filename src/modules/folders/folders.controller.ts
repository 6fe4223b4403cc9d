import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { DeletedFolderDto, FolderBodyDto, FolderDto, FolderListDto, ListFoldersQueryDto } from './folders.dto';
import { FoldersService } from './folders.service';
import { NoBody } from '../../common/http/no-body';

@ApiTags('Folders')
@Controller('folders')
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Post()
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Create a folder' })
  @ApiCreatedResponse({ type: FolderDto })
  create(@Auth() auth: AuthContext, @Body() body: FolderBodyDto): Promise<FolderDto> {
    return this.folders.create(auth, body.name);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List folders', description: 'Newest first.' })
  @ApiOkResponse({ type: FolderListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListFoldersQueryDto): Promise<FolderListDto> {
    return this.folders.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve a folder' })
  @ApiOkResponse({ type: FolderDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FolderDto> {
    return this.folders.retrieve(auth, id);
  }

  @Patch(':id')
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Rename a folder' })
  @ApiOkResponse({ type: FolderDto })
  rename(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: FolderBodyDto): Promise<FolderDto> {
    return this.folders.rename(auth, id, body.name);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Delete a folder', description: 'Its codes move to no folder.' })
  @ApiOkResponse({ type: DeletedFolderDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedFolderDto> {
    return this.folders.remove(auth, id);
  }
}
