import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { DAY_PATTERN, MAX_RANGE_DAYS } from './analytics-range';
import { IsOmittable } from '../../common/errors/validation';

const DAY_MESSAGE = (name: string) => `${name} must be a calendar date in the form YYYY-MM-DD (UTC), e.g. 2026-11-01`;

export class AnalyticsQueryDto {
  @ApiPropertyOptional({
    format: 'date',
    example: '2026-11-01',
    description:
      `First UTC day counted (inclusive). Default: everything up to \`to\` for totals and breakdowns; scans_by_day then starts ` +
      `at the code's creation day, or ${MAX_RANGE_DAYS - 1} days before \`to\` when the code is older. from..to spans at most ${MAX_RANGE_DAYS} days.`,
  })
  @IsOmittable()
  @IsString({ message: DAY_MESSAGE('from') })
  @Matches(DAY_PATTERN, { message: DAY_MESSAGE('from') })
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-11-30', description: 'Last UTC day counted (inclusive). Default: today (UTC).' })
  @IsOmittable()
  @IsString({ message: DAY_MESSAGE('to') })
  @Matches(DAY_PATTERN, { message: DAY_MESSAGE('to') })
  to?: string;
}

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

export class AnalyticsDto {
  @ApiProperty({ enum: ['analytics'], example: 'analytics' }) object!: 'analytics';
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) qr_code_id!: string;
  @ApiProperty({ type: 'integer', example: 42, description: 'Scans in the range (all time when unfiltered)' }) total_scans!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-20T08:14:03.120Z', description: 'First scan in the range; null when none' })
  first_scan_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-20T19:41:57.904Z', description: 'Last scan in the range; null when none' })
  last_scan_at!: string | null;
  @ApiProperty({
    type: [ScansByDayDto],
    description: `Every UTC day from \`from\` to \`to\` (defaults: see the query parameters), zero-filled, oldest first; at most ${MAX_RANGE_DAYS} days.`,
    example: [
      { date: '2026-11-19', count: 0 },
      { date: '2026-11-20', count: 42 },
    ],
  })
  scans_by_day!: ScansByDayDto[];
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
}
