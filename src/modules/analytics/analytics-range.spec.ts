import { ApiException } from '../../common/errors/api.exception';
import { dayNumber, parseRange, resolveRange, splitUtcDays, zeroFill } from './analytics-range';

const TODAY = '2026-11-23';

function refusal(fn: () => unknown): { field?: string; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    return { field: (err as ApiException).extras.field, message: (err as ApiException).message };
  }
  throw new Error('expected a refusal');
}

describe('analytics date ranges', () => {
  it('accepts calendar dates only', () => {
    expect(dayNumber('2024-02-29')).not.toBeNull();
    for (const bad of ['2026-02-29', '2026-13-01', '2026-1-01', '20261101', '2026-11-01T00:00:00Z', '']) expect(dayNumber(bad)).toBeNull();
    expect(refusal(() => parseRange({ to: '2026-02-30' }, TODAY)).field).toBe('to');
    expect(refusal(() => parseRange({ from: 'yesterday' }, TODAY)).field).toBe('from');
  });

  it('refuses from after to, including the default to (today)', () => {
    expect(refusal(() => parseRange({ from: '2026-11-10', to: '2026-11-09' }, TODAY))).toEqual({ field: 'from', message: expect.stringContaining('after to') });
    expect(refusal(() => parseRange({ from: '2026-11-24' }, TODAY)).message).toContain('today (2026-11-23');
    expect(parseRange({ from: '2026-11-10', to: '2026-11-10' }, TODAY)).toEqual({ from: dayNumber('2026-11-10'), to: dayNumber('2026-11-10') });
  });

  it('allows 366 days and refuses 367', () => {
    expect(() => parseRange({ from: '2025-11-23', to: '2026-11-23' }, TODAY)).not.toThrow();
    expect(refusal(() => parseRange({ from: '2025-11-22', to: '2026-11-23' }, TODAY)).message).toContain('367 days');
    expect(refusal(() => parseRange({ from: '2025-11-22' }, TODAY)).message).toContain('367 days');
  });

  it('defaults: all time for totals, creation day to today for the series, clamped to 366 days', () => {
    const none = parseRange({}, TODAY);
    expect(resolveRange(none, '2026-11-01', TODAY)).toEqual({ filter: { from: null, to: null }, series: { from: '2026-11-01', to: TODAY } });
    expect(resolveRange(none, '2020-01-01', TODAY).series).toEqual({ from: '2025-11-23', to: TODAY });
    expect(resolveRange(parseRange({ to: '2026-11-10' }, TODAY), '2026-11-01', TODAY)).toEqual({
      filter: { from: null, to: '2026-11-10' },
      series: { from: '2026-11-01', to: '2026-11-10' },
    });
    // Created after `to`: a one-day series rather than an inverted one.
    expect(resolveRange(parseRange({ to: '2026-10-01' }, TODAY), '2026-11-01', TODAY).series).toEqual({ from: '2026-10-01', to: '2026-10-01' });
    expect(resolveRange(parseRange({ from: '2026-11-20' }, TODAY), '2026-11-01', TODAY)).toEqual({
      filter: { from: '2026-11-20', to: null },
      series: { from: '2026-11-20', to: TODAY },
    });
  });

  it('refuses only `to` when the creation day to `to` spans more than 366 days', () => {
    expect(resolveRange(parseRange({ to: '2027-11-01' }, TODAY), '2026-11-01', TODAY).series).toEqual({ from: '2026-11-01', to: '2027-11-01' });
    const far = refusal(() => resolveRange(parseRange({ to: '2027-11-02' }, TODAY), '2026-11-01', TODAY));
    expect(far).toEqual({ field: 'to', message: expect.stringContaining('367 days') });
    expect(refusal(() => resolveRange(parseRange({ to: '9999-12-31' }, TODAY), '2026-11-01', TODAY)).field).toBe('to');
  });

  it('reads years before 100 as written', () => {
    expect(dayNumber('0001-01-01')).not.toBeNull();
    expect(dayNumber('0000-06-01')).toBeNull();
    expect(dayNumber('0099-12-31')! + 1).toBe(dayNumber('0100-01-01'));
  });

  it('zero-fills every day of the series, across month and year ends', () => {
    const days = zeroFill({ from: '2025-12-30', to: '2026-01-02' }, new Map([['2025-12-31', 3]]));
    expect(days).toEqual([
      { date: '2025-12-30', count: 0 },
      { date: '2025-12-31', count: 3 },
      { date: '2026-01-01', count: 0 },
      { date: '2026-01-02', count: 0 },
    ]);
  });
});

describe('splitUtcDays', () => {
  it('keeps UTC midnights as whole days with no edges', () => {
    expect(splitUtcDays('2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z')).toEqual({
      fromDay: '2026-11-01',
      toDay: '2026-11-03',
      fromAt: '2026-11-01T00:00:00Z',
      afterAt: '2026-11-04T00:00:00Z',
    });
  });

  it('leaves the partial UTC days of a zone east of UTC to the edges, across the autumn DST change', () => {
    // Europe/Paris 2026-10-24 00:00 (+02:00) to 2026-10-27 00:00 (+01:00)
    expect(splitUtcDays('2026-10-23T22:00:00Z', '2026-10-26T23:00:00Z')).toEqual({
      fromDay: '2026-10-24',
      toDay: '2026-10-25',
      fromAt: '2026-10-24T00:00:00Z',
      afterAt: '2026-10-26T00:00:00Z',
    });
  });

  it('gives no whole day for one local day of 23 hours west of UTC (the edges then cover it)', () => {
    // America/New_York 2026-03-08 (23 hours): 05:00Z to 04:00Z the next day
    const s = splitUtcDays('2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z');
    expect(s).toEqual({ fromDay: '2026-03-09', toDay: '2026-03-08', fromAt: '2026-03-09T00:00:00Z', afterAt: '2026-03-09T00:00:00Z' });
  });

  it('leaves open ends open', () => {
    expect(splitUtcDays(null, '2026-11-04T01:00:00Z')).toEqual({ fromDay: null, toDay: '2026-11-03', fromAt: null, afterAt: '2026-11-04T00:00:00Z' });
    expect(splitUtcDays('2026-11-01T01:00:00Z', null)).toEqual({ fromDay: '2026-11-02', toDay: null, fromAt: '2026-11-02T00:00:00Z', afterAt: null });
  });
});
