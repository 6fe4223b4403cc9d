import { type DynamicModule, type ModuleMetadata, Module, type Type } from '@nestjs/common';
import { LOGO_CHECK, type LogoCheck } from './logo-check';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/** API process: /v1/templates; logos are checked by a source a module above templates provides (src/app binds it). */
@Module({})
export class TemplatesApiModule {
  static forRoot(opts: { imports: ModuleMetadata['imports']; logos: Type<LogoCheck> }): DynamicModule {
    return {
      module: TemplatesApiModule,
      imports: opts.imports ?? [],
      controllers: [TemplatesController],
      providers: [TemplatesService, { provide: LOGO_CHECK, useExisting: opts.logos }],
    };
  }
}
