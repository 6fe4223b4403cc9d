import { ApiException } from '../../common/errors/api.exception';
import { dayNumber, parseRange, planBreakdownDays, resolveRange, splitUtcDays, zeroFill } from './analytics-range';

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
    // Valid dates at the ends of the calendar: a zone's offset or the day after would leave four-digit years.
    expect(refusal(() => parseRange({ to: '9999-12-31' }, TODAY))).toEqual({ field: 'to', message: expect.stringContaining('from 1970-01-01 to 9998-12-31') });
    expect(refusal(() => parseRange({ from: '0001-01-01', to: '0001-01-01' }, TODAY)).field).toBe('from');
    expect(parseRange({ from: '9998-12-31', to: '9998-12-31' }, TODAY)).toEqual({ from: dayNumber('9998-12-31'), to: dayNumber('9998-12-31') });
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

describe('planBreakdownDays', () => {
  it('reads one hour at each end of last month in Europe/Paris instead of 23 hours at the upper one', () => {
    // Europe/Paris 2026-11-01 00:00 (+01:00) to 2026-12-01 00:00 (+01:00)
    expect(planBreakdownDays('2026-10-31T23:00:00Z', '2026-11-30T23:00:00Z')).toEqual({
      dayFrom: '2026-11-01',
      dayTo: '2026-11-30',
      parts: [
        { from: '2026-10-31T23:00:00Z', to: '2026-11-01T00:00:00.000Z', sign: 1 },
        { from: '2026-11-30T23:00:00Z', to: '2026-12-01T00:00:00.000Z', sign: -1 },
      ],
    });
  });

  it('takes the shorter side at each end west of UTC (America/New_York, 5 hours each)', () => {
    // 2026-11-10 00:00 (-05:00) to 2026-11-13 00:00 (-05:00)
    expect(planBreakdownDays('2026-11-10T05:00:00Z', '2026-11-13T05:00:00Z')).toEqual({
      dayFrom: '2026-11-10',
      dayTo: '2026-11-12',
      parts: [
        { from: '2026-11-10T00:00:00.000Z', to: '2026-11-10T05:00:00Z', sign: -1 },
        { from: '2026-11-13T00:00:00.000Z', to: '2026-11-13T05:00:00Z', sign: 1 },
      ],
    });
  });

  it('changes nothing for UTC days and open ends', () => {
    expect(planBreakdownDays('2026-11-01T00:00:00Z', '2026-11-04T00:00:00Z')).toEqual({ dayFrom: '2026-11-01', dayTo: '2026-11-03', parts: [] });
    expect(planBreakdownDays(null, null)).toEqual({ dayFrom: null, dayTo: null, parts: [] });
  });

  // Every instant of the sample is counted exactly once when inside [lo, hi) and never otherwise: by the days, plus
  // the parts added, minus the parts taken back (15-minute steps; zones of whole, half and quarter hours; DST days).
  it('covers every range exactly once', () => {
    const H = 3_600_000;
    const base = Date.parse('2026-11-01T00:00:00Z');
    let checked = 0;
    for (const offset of [0, 15, 30, 45, 60 * 5, 60 * 12 + 45, 60 * 23 + 30]) {
      for (const loH of [null, 0, 1, 5, 11, 12, 13, 23]) {
        for (const len of [23, 24, 25, 47, 48, 49, 24 * 30, 24 * 30 + 1]) {
          for (const open of [false, true]) {
            const lo = loH === null ? null : base + loH * H + offset * 60_000;
            const hi = open || lo === null ? (lo === null ? base + len * H + offset * 60_000 : null) : lo + len * H;
            const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString().replace('.000Z', 'Z'));
            const plan = planBreakdownDays(iso(lo), iso(hi));
            // At most 12 hours of raw scans per end, unless the whole range lies inside one UTC day.
            const oneDay = lo !== null && hi !== null && iso(lo)!.slice(0, 10) === iso(hi - 1)!.slice(0, 10);
            if (!oneDay) for (const p of plan.parts) expect([iso(lo), iso(hi), Date.parse(p.to) - Date.parse(p.from) <= 12 * H]).toEqual([iso(lo), iso(hi), true]);
            const parts = plan.parts.map((p) => ({ from: Date.parse(p.from), to: Date.parse(p.to), sign: p.sign }));
            const days = { from: plan.dayFrom === null ? -Infinity : Date.parse(plan.dayFrom), to: plan.dayTo === null ? Infinity : Date.parse(plan.dayTo) + 24 * H };
            for (let t = base - 3 * 24 * H; t < base + 34 * 24 * H; t += 15 * 60_000) {
              let n = t >= days.from && t < days.to ? 1 : 0;
              for (const p of parts) if (t >= p.from && t < p.to) n += p.sign;
              const want = (lo === null || t >= lo) && (hi === null || t < hi) ? 1 : 0;
              if (n !== want) throw new Error(`lo ${iso(lo)} hi ${iso(hi)} at ${iso(t)}: counted ${n}, want ${want} (${JSON.stringify(plan)})`);
            }
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(7 * 8 * 8 * 2);
  });
});
