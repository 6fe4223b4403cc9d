import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { pageByCreatedAt } from '../../common/http/pagination';
import { lockOrganization } from '../accounts/organizations.repository';
import { type Design, parseDesign, presentFrame, storedDesign } from '../rendering/design';
import { LOGO_CHECK, type LogoCheck } from './logo-check';
import { Template } from './template.entity';
import { MAX_TEMPLATES, type CreateTemplateDto, type ListTemplatesQueryDto, type TemplateDto, type UpdateTemplateDto } from './templates.dto';
import { namesErrorCorrection, TEMPLATE_ID, templateStoredDesign } from './templates.repository';

/** Whether a request's design names an error correction level. */
const namesLevel = (design: unknown): boolean => typeof design === 'object' && design !== null && (design as { error_correction?: unknown }).error_correction !== undefined;

export function presentTemplate(t: Template): TemplateDto {
  const d = storedDesign(t.design);
  return {
    id: t.id,
    object: 'template',
    name: t.name,
    design: {
      error_correction: d.error_correction,
      colors: d.colors,
      gradient: d.gradient,
      shapes: d.shapes,
      eye_colors: d.eye_colors,
      has_logo: d.logo !== null,
      logo: d.logo,
      transparent_background: d.transparent_background,
      frame: presentFrame(d),
    },
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

@Injectable()
export class TemplatesService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    @Inject(LOGO_CHECK) private readonly logos: LogoCheck,
  ) {}

  /** The design validated exactly as a code's: its logo too (a template whose logo every code would refuse is a 400). */
  private async checkedDesign(design: Design, before?: Design): Promise<Design> {
    if (design.logo && design.logo.url !== before?.logo?.url) await this.logos.loadLogo(design.logo.url);
    return design;
  }

  /** At most MAX_TEMPLATES per workspace (both environments, like custom domains): the workspace row is locked while
   * counting, so concurrent creations cannot pass the limit together. */
  async create(auth: AuthContext, body: CreateTemplateDto): Promise<TemplateDto> {
    const design = templateStoredDesign(await this.checkedDesign(parseDesign(body.design)), namesLevel(body.design));
    const template = await this.em.transactional(async (em) => {
      await lockOrganization(em, auth.organizationId);
      const current = await em.count(Template, { organizationId: auth.organizationId });
      if (current + 1 > MAX_TEMPLATES) {
        throw new ApiException('plan_limit_reached', `A workspace can hold at most ${MAX_TEMPLATES} design templates; ${current} exist`, {
          limit: MAX_TEMPLATES,
          current_count: current,
          requested: 1,
          plan_id: auth.plan.id,
        });
      }
      const template = em.create(Template, { organizationId: auth.organizationId, environment: auth.environment, name: body.name, design });
      await em.flush();
      return template;
    });
    return presentTemplate(template);
  }

  list(auth: AuthContext, query: ListTemplatesQueryDto) {
    return pageByCreatedAt(this.em, Template, { organizationId: auth.organizationId, environment: auth.environment }, { ...query }, this.cursors, presentTemplate);
  }

  private async find(auth: AuthContext, id: string): Promise<Template> {
    const template = TEMPLATE_ID.test(id) ? await this.em.findOne(Template, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!template) throw ApiException.notFound('template', id);
    return template;
  }

  async retrieve(auth: AuthContext, id: string): Promise<TemplateDto> {
    return presentTemplate(await this.find(auth, id));
  }

  /** `design` merges over the stored design field by field, as PATCH /v1/qr-codes/{id} does for a code's design. */
  async update(auth: AuthContext, id: string, body: UpdateTemplateDto): Promise<TemplateDto> {
    const template = await this.find(auth, id);
    const stored = storedDesign(template.design);
    const design = body.design === undefined ? undefined : await this.checkedDesign(parseDesign(body.design, { base: stored }), stored);
    const wasNamed = namesErrorCorrection(template.design);
    const named = wasNamed || namesLevel(body.design);
    let changed = false;
    if (body.name !== undefined && body.name !== template.name) {
      template.name = body.name;
      changed = true;
    }
    if (design && JSON.stringify(design) !== JSON.stringify(stored)) {
      template.design = templateStoredDesign(design, named);
      changed = true;
    } else if (named !== wasNamed) {
      // The level it already had is now named: codes made from it keep it when they add a logo. Nothing an answer shows
      // changed, so updated_at stays.
      template.design = templateStoredDesign(stored, named);
      await this.em.flush();
    }
    if (changed) {
      template.updatedAt = new Date();
      await this.em.flush();
    }
    return presentTemplate(template);
  }

  /** Codes created from the template keep their design (they hold a copy). */
  async remove(auth: AuthContext, id: string): Promise<{ id: string; object: 'template'; deleted: true }> {
    const template = await this.find(auth, id);
    // Through the unit of work, so the audit log records the deletion in the same transaction.
    this.em.remove(template);
    await this.em.flush();
    return { id, object: 'template', deleted: true };
  }
}
