import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { ListTagsQueryDto, TagListDto } from './dto/tag.dto';
import { TagsService } from './tags.service';

@ApiTags('QR codes')
@Controller('tags')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({
    summary: 'List tags',
    description:
      'Every tag carried by a live code of this environment, with `qr_code_count`, the number of live codes carrying it ' +
      '(trashed and paused codes are not counted; a tag only they carry is not listed). Ordered by name; cursor pages. ' +
      'Tags are set on codes (`tags` on `POST`/`PATCH /v1/qr-codes`); filter codes by one with `GET /v1/qr-codes?tag=`.',
  })
  @ApiOkResponse({ type: TagListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListTagsQueryDto): Promise<TagListDto> {
    return this.tags.list(auth, query);
  }
}
