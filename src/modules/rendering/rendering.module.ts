import { Module } from '@nestjs/common';
import { RenderingService } from './rendering.service';

/** Pure rendering (design → SVG → PNG); import it wherever codes are drawn. */
@Module({ providers: [RenderingService], exports: [RenderingService] })
export class RenderingModule {}
