import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { DeletedQrCodeDto, EmptiedTrashDto } from './dto/qr-code-response.dto';
import { TrashService } from './trash.service';

@ApiTags('QR codes')
@Controller('trash')
export class TrashController {
  constructor(private readonly trash: TrashService) {}

  @Post('empty')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Empty the Trash',
    description:
      'Permanently deletes every trashed code of this environment (list them with `GET /v1/qr-codes?status=trashed`). ' +
      'Paused codes are never deleted. It cannot be undone: a deleted code\'s short URL stops resolving for good, and a ' +
      'dynamic GS1 code\'s identifier stays retired for `GS1_RETIREMENT_DAYS`. `deleted` counts the codes deleted (0 when ' +
      'the Trash was already empty).',
  })
  @ApiOkResponse({ type: EmptiedTrashDto })
  empty(@Auth() auth: AuthContext): Promise<EmptiedTrashDto> {
    return this.trash.empty(auth);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Delete a trashed QR code permanently',
    description: 'Only a code in the Trash: a live or paused code (or one already deleted) is 404. It cannot be undone.',
  })
  @ApiOkResponse({ type: DeletedQrCodeDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedQrCodeDto> {
    return this.trash.deleteOne(auth, id);
  }
}
