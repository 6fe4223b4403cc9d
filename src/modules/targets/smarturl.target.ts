import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { compileSmartTarget, DAYS, DEVICES, explain, keepRuleIds, OSES, parseSmartTarget, type SmartTarget, smartSummary } from './smart-rules';
import { defineHandler, refuseTargetPatch } from './target-handler';

class RuleTime {
  @ApiPropertyOptional({ type: [String], enum: DAYS, minItems: 1, example: ['mon', 'tue', 'wed', 'thu', 'fri'], description: 'Default: every day' }) days?: string[];
  @ApiPropertyOptional({ example: '09:00', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'Inclusive; default 00:00' }) from?: string;
  @ApiPropertyOptional({
    example: '17:30',
    pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
    description: 'Exclusive; before `from` the window wraps midnight and belongs to the day it starts on; equal to `from`: the whole day. Default 00:00',
  })
  to?: string;
  @ApiProperty({ example: 'Europe/Paris', description: 'IANA time zone name (`Area/Location`, `Etc/…`, `UTC`; abbreviations such as `PST` are refused); daylight-saving changes follow the zone. Required; `days`, `from` and `to` are optional (an omitted `from` or `to` is 00:00, so `{timezone}` alone matches every whole day)' }) timezone!: string;
}
class RuleDate {
  @ApiPropertyOptional({ format: 'date-time', example: '2026-06-01T00:00:00Z', description: 'Inclusive; RFC 3339 with seconds and an offset' }) from?: string;
  @ApiPropertyOptional({ format: 'date-time', example: '2026-06-30T23:59:59Z', description: 'Inclusive; RFC 3339 with seconds and an offset' }) to?: string;
}
class RuleScans {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000_000, example: 1, description: 'Inclusive scan number (1-based)' }) from?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000_000, example: 100, description: 'Inclusive scan number' }) to?: number;
}
class RuleConditionsSchema {
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 300, example: ['FR', 'BE'], description: 'ISO 3166-1 alpha-2' }) country?: string[];
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 300, example: ['US-CA'], description: 'ISO 3166-2' }) region?: string[];
  @ApiPropertyOptional({ type: [String], enum: DEVICES, minItems: 1, example: ['mobile'] }) device?: string[];
  @ApiPropertyOptional({ type: [String], enum: OSES, minItems: 1, example: ['ios'] }) os?: string[];
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 300, example: ['fr'], description: 'BCP 47 tags with an ISO 639-1 language: `fr` matches `fr` and `fr-CA`, `de-AT` only `de-AT` (the visitor\'s first Accept-Language preference: the range with the highest q)' })
  language?: string[];
  @ApiPropertyOptional({ type: RuleTime }) time?: RuleTime;
  @ApiPropertyOptional({ type: RuleDate }) date?: RuleDate;
  @ApiPropertyOptional({ type: RuleScans }) scans?: RuleScans;
}
class SplitArmSchema {
  @ApiProperty({ example: 'https://example.com/a' }) destination!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, example: 50, description: 'Integer weight' }) weight!: number;
}
class RuleThen {
  @ApiPropertyOptional({ example: 'https://example.com/fr', description: 'Exactly one of `destination` and `split` is required' }) destination?: string;
  @ApiPropertyOptional({ type: [SplitArmSchema], minItems: 1, maxItems: 10, description: 'Weighted A/B split, drawn per scan (exactly one of `destination` and `split`)' }) split?: SplitArmSchema[];
}
class SmartRule {
  @ApiPropertyOptional({ example: 'rul_8fK2mN4pQ6rS1tU3vW5x', description: 'Set by the server; send it back (`PUT …/content`) to keep a rule\'s id and its analytics across edits. An id this code does not have (any id on creation) is replaced by a new one' })
  id?: string;
  @ApiPropertyOptional({ example: 'French speakers', maxLength: 100 }) name?: string;
  @ApiPropertyOptional({ type: RuleConditionsSchema, description: 'Every condition must hold (AND); each lists values (OR). Empty: always matches' })
  if?: RuleConditionsSchema;
  @ApiProperty({ type: RuleThen }) then!: RuleThen;
}
export class SmarturlTarget {
  @ApiProperty({ enum: ['smarturl'] }) type!: string;
  @ApiProperty({ example: 'https://example.com', description: 'Where a scan goes when no rule matches' }) default_url!: string;
  @ApiPropertyOptional({ type: [SmartRule], maxItems: 20, description: 'First matching rule wins' }) rules?: SmartRule[];
}

/**
 * Smart URL (docs/smart-urls.md): one printed code whose rules pick each scan's destination (country, region, device,
 * OS, language, time window, date, scan number; weighted splits). Page-holding: its rules change through
 * `PUT /qr-codes/{id}/content`, never through PATCH.
 */
export const smarturlHandler = defineHandler<SmartTarget>({
  type: 'smarturl',
  schema: SmarturlTarget,
  staticCapable: false,
  pageHolding: true,
  parse(r) {
    r.only(['default_url', 'rules']);
    return parseSmartTarget(r);
  },
  // A rule id is kept only when the code has that rule already (PUT …/content); any other is replaced by a new one.
  resolve: (target, ctx) => Promise.resolve(keepRuleIds(target, ctx.current as Partial<SmartTarget> | undefined)),
  patch: () => refuseTargetPatch('smarturl'),
  payload() {
    throw new Error('smarturl codes are dynamic only');
  },
  summary: (t) => smartSummary(t),
  testRules: (t, facts) => explain(t, facts),
  scan: { visitorLocation: (t) => compileSmartTarget(t) },
});
