import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiQuery } from '@nestjs/swagger';
import { MAX_RANGE_DAYS } from './analytics-range';
import { FILTER_DIMENSIONS, INTERVALS, MAX_CODE_IDS, MAX_SERIES_POINTS } from './analytics-query';

/** The query parameters of both analytics endpoints (validated by analytics-query.ts, documented here). */
export const AnalyticsQueryDocs = () =>
  applyDecorators(
    ApiQuery({
      name: 'from',
      required: false,
      schema: { type: 'string', format: 'date', example: '2026-11-01' },
      description:
        `First day counted (inclusive), a calendar date in \`timezone\`. Default: everything up to \`to\` for totals and breakdowns; ` +
        `the series then starts at the (first) code's creation day, or ${MAX_RANGE_DAYS - 1} days before \`to\`. from..to spans at most ${MAX_RANGE_DAYS} days.`,
    }),
    ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date', example: '2026-11-30' }, description: 'Last day counted (inclusive). Default: today in `timezone`.' }),
    ApiQuery({
      name: 'timezone',
      required: false,
      schema: { type: 'string', example: 'Europe/Paris', default: 'UTC' },
      description: 'IANA time zone of the dates, day boundaries, series starts and by_hour_of_week. Exact for zones with whole-hour offsets (hourly rollups); see docs/analytics.md for the others.',
    }),
    ApiQuery({
      name: 'interval',
      required: false,
      schema: { type: 'string', enum: [...INTERVALS], default: 'day' },
      description: `Series step of scans_by_interval (weeks start on Monday, months on the 1st). At most ${MAX_SERIES_POINTS} points (hour: ranges up to 31 days).`,
    }),
    DimensionFilterDocs('Filters apply to the whole answer and combine with AND.'),
  );

/** The dimension filters (`country=FR&device=mobile`) of the analytics endpoints and of GET /scans. */
export const DimensionFilterDocs = (scope: string) =>
  applyDecorators(
    ...FILTER_DIMENSIONS.map((d) =>
      ApiQuery({
        name: d,
        required: false,
        schema: { type: 'string' },
        description: `Only scans whose ${d} is this value (case-insensitive; \`Unknown\` = not determined). ${scope}`,
      }),
    ),
  );

/** The workspace selection of GET /analytics and GET /scans. */
export const WorkspaceSelectionDocs = () =>
  applyDecorators(
    ApiQuery({ name: 'folder_id', required: false, schema: { type: 'string', example: 'fld_8hPq2mXv4kLz9sTa' }, description: 'Only codes of this folder' }),
    ApiQuery({ name: 'tag', required: false, schema: { type: 'string', example: 'spring-campaign' }, description: 'Only codes with this tag' }),
    ApiQuery({ name: 'type', required: false, schema: { type: 'string', example: 'url' }, description: 'Only codes of this target type' }),
    ApiQuery({
      name: 'qr_code_id',
      required: false,
      schema: { type: 'array', items: { type: 'string' }, maxItems: MAX_CODE_IDS },
      style: 'form',
      explode: true,
      description: `Only these codes (repeat the parameter, or \`qr_code_id[]=…\`; at most ${MAX_CODE_IDS}).`,
    }),
  );

export class ScansByDayDto {
  @ApiProperty({ format: 'date', example: '2026-11-20', description: 'UTC day' }) date!: string;
  @ApiProperty({ type: 'integer', example: 42 }) count!: number;
}

export class BreakdownItemDto {
  @ApiProperty({ example: 'GB', description: 'The value; `Unknown` when it could not be determined' }) name!: string;
  @ApiProperty({ type: 'integer', example: 17 }) count!: number;
}

const Breakdown = (description: string, example: { name: string; count: number }[]) =>
  ApiProperty({ type: [BreakdownItemDto], description: `${description} Top 10 by count (descending), then name.`, example });

export class IntervalPointDto {
  @ApiProperty({ example: '2026-11-20T00:00:00+01:00', description: 'Start of the interval, RFC 3339 with the offset of `timezone` at that moment' }) start!: string;
  @ApiProperty({ type: 'integer', example: 42 }) scans!: number;
  @ApiProperty({ type: 'integer', example: 30, description: 'Scans that were their visitor\'s first of the UTC day on that code' }) unique_scans!: number;
}

export class RuleItemDto {
  @ApiProperty({ type: String, nullable: true, example: 'rul_8fK2mN4pQ6rS1tU3vW5x', description: 'The smart-URL rule (`rul_…`, its `id` in the code\'s `target.rules`); null = the default destination' }) rule_id!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 0, description: 'The split arm, or null' }) arm!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'French speakers', description: 'The rule\'s name when the code still has it' }) name!: string | null;
  @ApiProperty({ type: 'integer', example: 12 }) count!: number;
}

export class CodeItemDto {
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Spring poster' }) name!: string | null;
  @ApiProperty({ type: 'integer', example: 42 }) count!: number;
}

/** What both analytics answers share. */
export interface AnalyticsBody {
  total_scans: number;
  unique_scans: number;
  expired_scans: number;
  first_scan_at: string | null;
  last_scan_at: string | null;
  timezone: string;
  interval: string;
  scans_by_day?: ScansByDayDto[];
  scans_by_interval: IntervalPointDto[];
  by_hour_of_week: number[];
  countries: BreakdownItemDto[];
  cities: BreakdownItemDto[];
  devices: BreakdownItemDto[];
  operating_systems: BreakdownItemDto[];
  browsers: BreakdownItemDto[];
  referrers: BreakdownItemDto[];
  languages: BreakdownItemDto[];
  rules: RuleItemDto[];
  qr_codes?: CodeItemDto[];
}

export class AnalyticsDto {
  @ApiProperty({ enum: ['analytics'], example: 'analytics' }) object!: 'analytics';
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) qr_code_id!: string;
  @ApiProperty({ type: 'integer', example: 42, description: 'Scans in the range (all time when unfiltered); expired-link scans are not counted here' }) total_scans!: number;
  @ApiProperty({
    type: 'integer',
    example: 30,
    description: 'Distinct visitors per UTC day, summed over the range (a visitor = daily-salted hash of code, address and user agent; nothing stable is stored)',
  })
  unique_scans!: number;
  @ApiProperty({ type: 'integer', example: 2, description: 'Scans of the link after it expired (link controls); not in total_scans' }) expired_scans!: number;
  @ApiProperty({ example: 'Europe/Paris', description: 'The time zone of the answer: the name sent, in its IANA spelling' }) timezone!: string;
  @ApiProperty({ enum: [...INTERVALS], example: 'day' }) interval!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-20T08:14:03.120Z', description: 'First scan in the range; null when none' })
  first_scan_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-20T19:41:57.904Z', description: 'Last scan in the range; null when none' })
  last_scan_at!: string | null;
  @ApiProperty({
    type: [ScansByDayDto],
    required: false,
    description: `With interval=day only: every day from \`from\` to \`to\` (dates in \`timezone\`), zero-filled, oldest first; at most ${MAX_RANGE_DAYS} days.`,
    example: [
      { date: '2026-11-19', count: 0 },
      { date: '2026-11-20', count: 42 },
    ],
  })
  scans_by_day?: ScansByDayDto[];
  @ApiProperty({ type: [IntervalPointDto], description: `Every interval of the series, zero-filled, oldest first (at most ${MAX_SERIES_POINTS} points)` })
  scans_by_interval!: IntervalPointDto[];
  @ApiProperty({
    type: [Number],
    minItems: 168,
    maxItems: 168,
    description: 'Scans per hour of the week in `timezone` over the range: Monday 00:00–01:00 first, Sunday 23:00–24:00 last',
  })
  by_hour_of_week!: number[];
  @Breakdown('ISO 3166-1 alpha-2 country codes.', [{ name: 'GB', count: 30 }, { name: 'US', count: 10 }, { name: 'Unknown', count: 2 }])
  countries!: BreakdownItemDto[];
  @Breakdown('Cities (GeoLite2 names).', [{ name: 'London', count: 25 }, { name: 'Unknown', count: 17 }])
  cities!: BreakdownItemDto[];
  @Breakdown('Device types: Mobile, Tablet, Desktop, …', [{ name: 'Mobile', count: 38 }, { name: 'Desktop', count: 4 }])
  devices!: BreakdownItemDto[];
  @Breakdown('Operating systems.', [{ name: 'iOS', count: 25 }, { name: 'Android', count: 13 }, { name: 'Windows', count: 4 }])
  operating_systems!: BreakdownItemDto[];
  @Breakdown('Browsers.', [{ name: 'Mobile Safari', count: 25 }, { name: 'Chrome', count: 17 }])
  browsers!: BreakdownItemDto[];
  @Breakdown('Referring host names; `Unknown` = no Referer (a camera app sends none).', [{ name: 'Unknown', count: 40 }, { name: 'news.example.com', count: 2 }])
  referrers!: BreakdownItemDto[];
  @Breakdown('Primary language subtags of Accept-Language.', [{ name: 'en', count: 35 }, { name: 'de', count: 7 }])
  languages!: BreakdownItemDto[];
  @ApiProperty({ type: [RuleItemDto], description: 'Scans per smart-URL rule and split arm (the default destination as rule_id null), by count: every rule and arm with scans (at most 201 rows); [] for codes without rules' })
  rules!: RuleItemDto[];
}

export class WorkspaceAnalyticsDto extends AnalyticsDto {
  @ApiProperty({ enum: ['analytics'], example: 'analytics' }) declare object: 'analytics';
  @ApiProperty({ type: String, nullable: true, example: null, description: 'null: the answer covers several codes' }) declare qr_code_id: string;
  @ApiProperty({ type: [CodeItemDto], description: 'The codes with the most scans in the range, top 10 by count' }) qr_codes!: CodeItemDto[];
}

/** A workspace answer as the service builds it: WorkspaceAnalyticsDto (what the OpenAPI document shows) with its
 * `qr_code_id` always null. */
export type WorkspaceAnalytics = Omit<WorkspaceAnalyticsDto, 'qr_code_id'> & { qr_code_id: null };

export class ScanRowDto {
  @ApiProperty({ example: 'scan_7dK2pQ9xLm4vB8nZ1sTa' }) id!: string;
  @ApiProperty({ enum: ['scan'], example: 'scan' }) object!: 'scan';
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) qr_code_id!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-20T08:14:03.120Z' }) scanned_at!: string;
  @ApiProperty({ type: String, nullable: true, example: 'GB' }) country!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'London' }) city!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mobile' }) device!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'iOS' }) os!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mobile Safari' }) browser!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Referring host name' }) referrer!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'en' }) language!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'The smart-URL rule that chose the destination (null: none, or the default)' })
  rule_id!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'The split arm' }) arm!: number | null;
  @ApiProperty({ example: true, description: "The visitor's first scan of this code on that UTC day" }) unique!: boolean;
  @ApiProperty({ example: false, description: 'A scan of the link after it expired (not in total_scans)' }) expired!: boolean;
}

export class ScanListDto {
  @ApiProperty({ enum: ['list'], example: 'list' }) object!: 'list';
  @ApiProperty({ type: [ScanRowDto] }) data!: ScanRowDto[];
  @ApiProperty({ example: false }) has_more!: boolean;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Pass as `cursor` for the next page' }) next_cursor!: string | null;
}
