import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { CursorCodec, queryFingerprint } from '../../common/http/cursor';
import { listOf } from '../../common/http/list';
import { parseLimit } from '../../common/http/pagination';
import type { ListTagsQueryDto, TagDto, TagListDto } from './dto/tag.dto';

/** A cursor of this list cannot be replayed on another list. */

/** The workspace's tags: every distinct tag of its live codes (this environment), with how many codes carry it. */
@Injectable()
export class TagsService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
  ) {}

  /** Ordered by name (byte order, so the cursor's comparison and the order agree), one page at a time. */
  async list(auth: AuthContext, query: ListTagsQueryDto): Promise<TagListDto> {
    const limit = parseLimit(query.limit);
    const fingerprint = queryFingerprint(auth, { list: 'tags' });
    const after = query.cursor !== undefined ? String(this.cursors.decode(query.cursor, fingerprint).v ?? '') : null;
    const rows = await this.em.execute<Array<{ name: string; qr_code_count: number }>>(
      `select t.name, count(*)::int as qr_code_count
         from qr_codes c cross join lateral unnest(c.tags) as t(name)
        where c.organization_id = ? and c.environment = ? and c.status = 'live'${after !== null ? ' and t.name collate "C" > ?' : ''}
        group by t.name
        order by t.name collate "C" asc
        limit ?`,
      [auth.organizationId, auth.environment, ...(after !== null ? [after] : []), limit + 1],
    );
    const page: TagDto[] = rows.slice(0, limit).map((r) => ({ object: 'tag', name: r.name, qr_code_count: r.qr_code_count }));
    const last = page.at(-1);
    return listOf(page, rows.length > limit, last ? this.cursors.encode({ v: last.name, id: last.name }, fingerprint) : null);
  }
}
