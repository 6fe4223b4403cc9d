import { ApiException } from '../../common/errors/api.exception';
import { FieldReader } from './fields';
import { preferredLanguage } from '../../common/http/accept-language';
import { compileSmartTarget, deviceOf, explain, keepRuleIds, osOf, parseSmartTarget, parseTestFacts, type SmartTarget, type VisitorFacts, ZoneClock } from './smart-rules';

const parse = (target: Record<string, unknown>): SmartTarget => parseSmartTarget(new FieldReader(target));
const facts = (over: Partial<VisitorFacts> = {}): VisitorFacts => ({
  country: null,
  region: null,
  device: null,
  os: null,
  language: null,
  at: Date.parse('2026-05-06T12:00:00Z'),
  scanNumber: 1,
  ...over,
});
const one = (cond: Record<string, unknown>) => parse({ default_url: 'https://d.example', rules: [{ if: cond, then: { destination: 'https://r.example/' } }] });
/** Whether a rule with `cond` matches the facts (the scan host's decider and the rule tester agree). */
function matches(cond: Record<string, unknown>, f: Partial<VisitorFacts>): boolean {
  const target = one(cond);
  const decided = compileSmartTarget(target)(facts(f), Math.random);
  const explained = explain(target, facts(f));
  expect(explained.rule_id).toBe(decided.ruleId);
  return decided.ruleId !== null;
}
function refusal(target: Record<string, unknown>): string | undefined {
  try {
    parse(target);
  } catch (err) {
    if (err instanceof ApiException) return err.extras.field;
    throw err;
  }
  return undefined;
}

describe('smart-URL rules', () => {
  describe('conditions', () => {
    it('country, region, device, os: any listed value', () => {
      expect(matches({ country: ['fr', 'BE'] }, { country: 'BE' })).toBe(true);
      expect(matches({ country: ['FR'] }, { country: 'DE' })).toBe(false);
      expect(matches({ country: ['FR'] }, { country: null })).toBe(false);
      // Kosovo: not in ISO 3166-1, but GeoLite2 reports XK for its addresses.
      expect(matches({ country: ['xk'] }, { country: 'XK' })).toBe(true);
      expect(matches({ region: ['us-ca'] }, { country: 'US', region: 'US-CA' })).toBe(true);
      expect(matches({ region: ['US-CA'] }, { region: 'US-NY' })).toBe(false);
      expect(matches({ device: ['mobile', 'tablet'] }, { device: 'tablet' })).toBe(true);
      expect(matches({ device: ['mobile'] }, { device: 'desktop' })).toBe(false);
      expect(matches({ os: ['ios'] }, { os: 'ios' })).toBe(true);
      expect(matches({ os: ['ios'] }, { os: 'android' })).toBe(false);
    });

    it('language: `fr` matches fr and fr-CA, `de-AT` only de-AT', () => {
      expect(matches({ language: ['fr'] }, { language: 'fr' })).toBe(true);
      expect(matches({ language: ['fr'] }, { language: 'fr-ca' })).toBe(true);
      expect(matches({ language: ['fr'] }, { language: 'fro' })).toBe(false);
      expect(matches({ language: ['de-AT'] }, { language: 'de-at' })).toBe(true);
      expect(matches({ language: ['de-AT'] }, { language: 'de' })).toBe(false);
      expect(matches({ language: ['de-AT'] }, { language: 'de-de' })).toBe(false);
      expect(preferredLanguage('fr-CA,fr;q=0.9,en;q=0.5')).toBe('fr-ca');
      expect(preferredLanguage('*')).toBeNull();
      // The preference is the highest quality, not the first listed; q=0 is "not this one".
      expect(preferredLanguage('en;q=0.1, fr-CA;q=0.9')).toBe('fr-ca');
      expect(preferredLanguage('de;q=0, en-GB')).toBe('en-gb');
      expect(preferredLanguage('*, fr;q=0.5')).toBeNull();
    });

    it('all conditions of a rule must hold', () => {
      expect(matches({ country: ['FR'], device: ['mobile'] }, { country: 'FR', device: 'mobile' })).toBe(true);
      expect(matches({ country: ['FR'], device: ['mobile'] }, { country: 'FR', device: 'desktop' })).toBe(false);
      expect(matches({}, {})).toBe(true);
    });

    it('a condition on a fact the scan lacks never matches; the first rule whose conditions all hold wins', () => {
      expect(matches({ device: ['mobile', 'tablet', 'desktop'] }, { device: null })).toBe(false);
      expect(matches({ os: ['other'] }, { os: null })).toBe(false);
      expect(matches({ os: ['other'] }, { os: 'other' })).toBe(true);
      expect(matches({ region: ['US-CA'] }, { region: null })).toBe(false);
      expect(matches({ language: ['en'] }, { language: null })).toBe(false);
      const target = parse({
        default_url: 'https://d.example',
        rules: [
          { if: { os: ['ios'], country: ['FR'] }, then: { destination: 'https://1.example/' } },
          { if: { device: ['mobile'], scans: { from: 2 } }, then: { destination: 'https://2.example/' } },
          { if: { device: ['mobile'] }, then: { destination: 'https://3.example/' } },
        ],
      });
      const decide = compileSmartTarget(target);
      const where = (f: Partial<VisitorFacts>) => decide(facts(f), Math.random).location;
      expect(where({ device: 'mobile', os: 'ios', country: 'FR' })).toBe('https://1.example/');
      expect(where({ device: 'mobile', os: 'ios', country: 'DE', scanNumber: 2 })).toBe('https://2.example/');
      expect(where({ device: 'mobile', os: 'ios', country: 'DE', scanNumber: 1 })).toBe('https://3.example/');
      expect(where({ device: 'tablet', os: 'ios' })).toBe('https://d.example/');
    });

    it('a stored rule whose list holds no value of the vocabulary matches nothing (data written by hand or an older version)', () => {
      const stored: SmartTarget = { default_url: 'https://d.example', rules: [{ id: 'rul_0123456789abcdefghij', name: null, if: { device: ['watch'] }, then: { destination: 'https://r.example/' } }] };
      expect(compileSmartTarget(stored)(facts({ device: 'mobile' }), Math.random).ruleId).toBeNull();
      expect(explain(stored, facts({ device: 'mobile' })).rule_id).toBeNull();
    });

    it('date: inclusive bounds, either may be open', () => {
      const cond = { date: { from: '2026-06-01T00:00:00Z', to: '2026-06-30T23:59:59Z' } };
      expect(matches(cond, { at: Date.parse('2026-06-01T00:00:00Z') })).toBe(true);
      expect(matches(cond, { at: Date.parse('2026-06-30T23:59:59Z') })).toBe(true);
      expect(matches(cond, { at: Date.parse('2026-05-31T23:59:59Z') })).toBe(false);
      expect(matches(cond, { at: Date.parse('2026-07-01T00:00:00Z') })).toBe(false);
      expect(matches({ date: { from: '2026-06-01T02:00:00+02:00' } }, { at: Date.parse('2026-06-01T00:00:00Z') })).toBe(true);
    });

    it('scans: inclusive scan-number bounds', () => {
      expect(matches({ scans: { from: 1, to: 100 } }, { scanNumber: 100 })).toBe(true);
      expect(matches({ scans: { from: 1, to: 100 } }, { scanNumber: 101 })).toBe(false);
      expect(matches({ scans: { from: 101 } }, { scanNumber: 101 })).toBe(true);
      expect(matches({ scans: { to: 5 } }, { scanNumber: null })).toBe(false);
    });
  });

  describe('time windows', () => {
    const at = (iso: string) => ({ at: Date.parse(iso) });
    it('follows daylight-saving changes of the zone (Europe/Paris, 29 March 2026)', () => {
      const cond = { time: { from: '09:00', to: '10:00', timezone: 'Europe/Paris' } };
      expect(matches(cond, at('2026-03-28T08:30:00Z'))).toBe(true); // 09:30 CET
      expect(matches(cond, at('2026-03-28T07:30:00Z'))).toBe(false); // 08:30 CET
      expect(matches(cond, at('2026-03-30T08:30:00Z'))).toBe(false); // 10:30 CEST
      expect(matches(cond, at('2026-03-30T07:30:00Z'))).toBe(true); // 09:30 CEST
      expect(matches(cond, at('2026-10-26T08:00:00Z'))).toBe(true); // back to CET: 09:00
    });

    it('is exact across the changeover minute itself (America/New_York, 8 March 2026, 02:00 → 03:00)', () => {
      const cond = { time: { from: '03:00', to: '04:00', timezone: 'America/New_York' } };
      expect(matches(cond, at('2026-03-08T06:59:59Z'))).toBe(false); // 01:59:59 EST
      expect(matches(cond, at('2026-03-08T07:00:00Z'))).toBe(true); // 03:00 EDT
      const clock = new ZoneClock('America/New_York');
      expect(clock.local(Date.parse('2026-03-08T06:59:00Z'))).toEqual([0, 1 * 60 + 59]);
      expect(clock.local(Date.parse('2026-03-08T07:00:00Z'))).toEqual([0, 3 * 60]);
    });

    it('wraps midnight, and belongs to the day it starts on', () => {
      const cond = { time: { days: ['fri'], from: '22:00', to: '02:00', timezone: 'UTC' } };
      expect(matches(cond, at('2026-05-08T23:00:00Z'))).toBe(true); // Friday 23:00
      expect(matches(cond, at('2026-05-09T01:59:00Z'))).toBe(true); // Saturday 01:59: Friday's window
      expect(matches(cond, at('2026-05-09T02:00:00Z'))).toBe(false); // `to` is exclusive
      expect(matches(cond, at('2026-05-09T23:00:00Z'))).toBe(false); // Saturday evening
      expect(matches(cond, at('2026-05-08T01:00:00Z'))).toBe(false); // Friday 01:00 belongs to Thursday
      expect(matches(cond, at('2026-05-08T21:59:00Z'))).toBe(false);
    });

    it('days and zone: a weekday window in Tokyo', () => {
      const cond = { time: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:30', timezone: 'Asia/Tokyo' } };
      expect(matches(cond, at('2026-05-08T08:29:00Z'))).toBe(true); // Fri 17:29 JST
      expect(matches(cond, at('2026-05-08T08:30:00Z'))).toBe(false); // Fri 17:30 JST
      expect(matches(cond, at('2026-05-09T01:00:00Z'))).toBe(false); // Sat 10:00 JST
      expect(matches({ time: { days: ['sat'], timezone: 'Asia/Tokyo' } }, at('2026-05-08T15:00:00Z'))).toBe(true); // Sat 00:00 JST
    });
  });

  describe('decisions', () => {
    it('first matching rule wins; none → default_url', () => {
      const target = parse({
        default_url: 'https://default.example',
        rules: [
          { if: { country: ['FR'] }, then: { destination: 'https://fr.example' } },
          { if: { device: ['mobile'] }, then: { destination: 'https://m.example' } },
        ],
      });
      const decide = compileSmartTarget(target);
      expect(decide(facts({ country: 'FR', device: 'mobile' }), Math.random)).toEqual({ ruleId: target.rules[0].id, arm: null, location: 'https://fr.example/' });
      expect(decide(facts({ device: 'mobile' }), Math.random).ruleId).toBe(target.rules[1].id);
      expect(decide(facts(), Math.random)).toEqual({ ruleId: null, arm: null, location: 'https://default.example/' });
      expect(explain(target, facts())).toEqual({ rule_id: null, destination: 'https://default.example' });
    });

    it('splits draw arms by weight', () => {
      const target = parse({
        default_url: 'https://d.example',
        rules: [{ then: { split: [{ destination: 'https://a.example', weight: 1 }, { destination: 'https://b.example', weight: 3 }] } }],
      });
      const decide = compileSmartTarget(target);
      expect(decide(facts(), () => 0).arm).toBe(0);
      expect(decide(facts(), () => 0.2499).arm).toBe(0);
      expect(decide(facts(), () => 0.25).arm).toBe(1);
      expect(decide(facts(), () => 0.9999).location).toBe('https://b.example/');
      const counts = [0, 0];
      for (let i = 0; i < 20_000; i++) counts[decide(facts(), Math.random).arm!]++;
      expect(counts[1] / 20_000).toBeGreaterThan(0.73);
      expect(counts[1] / 20_000).toBeLessThan(0.77);
      expect(explain(target, facts())).toEqual({
        rule_id: target.rules[0].id,
        split: [{ destination: 'https://a.example', weight: 1 }, { destination: 'https://b.example', weight: 3 }],
        arm_candidates: [0, 1],
      });
    });

    it('gives every new rule a rul_ id and keeps the ids it is sent with', () => {
      const first = parse({ default_url: 'https://d.example', rules: [{ then: { destination: 'https://a.example' } }, { then: { destination: 'https://b.example' } }] });
      expect(first.rules.map((r) => r.id)).toEqual([expect.stringMatching(/^rul_[0-9A-Za-z]{20}$/), expect.stringMatching(/^rul_/)]);
      const edited = parse({ default_url: 'https://d.example', rules: [{ then: { destination: 'https://new.example' } }, first.rules[1]] });
      expect(edited.rules[1].id).toBe(first.rules[1].id);
      expect(edited.rules[0].id).not.toBe(first.rules[0].id);
    });
  });

  describe('validation names the path', () => {
    const rules = (...r: unknown[]) => ({ default_url: 'https://d.example', rules: r });
    const when = (cond: unknown) => rules({ if: cond, then: { destination: 'https://a.example' } });
    it.each([
      [when({ colour: ['red'] }), 'target.rules[0].if.colour'],
      [when({ country: ['XX'] }), 'target.rules[0].if.country[0]'],
      [when({ region: ['US-ZZ'] }), 'target.rules[0].if.region[0]'],
      [when({ language: ['xx'] }), 'target.rules[0].if.language[0]'],
      [when({ device: ['phone'] }), 'target.rules[0].if.device[0]'],
      [when({ os: ['beos'] }), 'target.rules[0].if.os[0]'],
      [when({ country: [] }), 'target.rules[0].if.country'],
      [rules({ then: { destination: 'https://a.example' } }, { then: { destination: 'https://a.example' } }, { then: { destination: 'https://a.example' } }, { if: { time: { from: '09:00', timezone: 'Mars/Olympus' } }, then: { destination: 'https://a.example' } }), 'target.rules[3].if.time.timezone'],
      [when({ time: { from: '24:00', timezone: 'UTC' } }), 'target.rules[0].if.time.from'],
      [when({ time: { to: '9:00', timezone: 'UTC' } }), 'target.rules[0].if.time.to'],
      [when({ time: { days: ['someday'], timezone: 'UTC' } }), 'target.rules[0].if.time.days[0]'],
      [when({ time: { from: '09:00' } }), 'target.rules[0].if.time.timezone'],
      [when({ date: { from: '2026-07-01T00:00:00Z', to: '2026-06-01T00:00:00Z' } }), 'target.rules[0].if.date.from'],
      [when({ date: { from: 'tomorrow' } }), 'target.rules[0].if.date.from'],
      [when({ scans: { from: 0 } }), 'target.rules[0].if.scans.from'],
      [when({ scans: { from: 5, to: 2 } }), 'target.rules[0].if.scans.from'],
      [rules({ then: { split: [{ destination: 'https://a.example', weight: 0 }] } }), 'target.rules[0].then.split[0].weight'],
      [rules({ then: { split: [{ destination: 'https://a.example', weight: 1.5 }] } }), 'target.rules[0].then.split[0].weight'],
      [rules({ then: { split: [] } }), 'target.rules[0].then.split'],
      [rules({ then: { split: Array.from({ length: 11 }, () => ({ destination: 'https://a.example', weight: 1 })) } }), 'target.rules[0].then.split'],
      [rules({ then: { destination: 'javascript:alert(1)' } }), 'target.rules[0].then.destination'],
      [rules({ then: {} }), 'target.rules[0].then.destination'],
      [rules({ if: {} }), 'target.rules[0].then'],
      [rules({ id: 'rule-1', then: { destination: 'https://a.example' } }), 'target.rules[0].id'],
      [rules({ then: { destination: 'https://a.example' }, extra: 1 }), 'target.rules[0].extra'],
      [rules(...Array.from({ length: 21 }, () => ({ then: { destination: 'https://a.example' } }))), 'target.rules'],
      [{ rules: [] }, 'target.default_url'],
      // Not IANA names, although ICU knows them; an empty window; values of the wrong JSON type; `type` inside a rule.
      [when({ time: { from: '09:00', to: '17:00', timezone: 'PST' } }), 'target.rules[0].if.time.timezone'],
      [when({ time: { from: '09:00', to: '17:00', timezone: 'SystemV/AST4' } }), 'target.rules[0].if.time.timezone'],
      [when({ time: { from: '', to: '10:00', timezone: 'UTC' } }), 'target.rules[0].if.time.from'],
      [when({ time: { from: '09:00', to: '17:00', timezone: 'UTC', type: 'x' } }), 'target.rules[0].if.time.type'],
      [when({ type: 'x' }), 'target.rules[0].if.type'],
      [rules({ type: 'x', then: { destination: 'https://a.example' } }), 'target.rules[0].type'],
      [rules({ then: { destination: 'https://a.example', type: 'x' } }), 'target.rules[0].then.type'],
      [when({ country: 'FR' }), 'target.rules[0].if.country'],
      [when({ scans: { from: '3' } }), 'target.rules[0].if.scans.from'],
      [rules({ then: { split: [{ destination: 'https://a.example', weight: '50' }] } }), 'target.rules[0].then.split[0].weight'],
      // RFC 3339: a real date, seconds and an offset.
      [when({ date: { from: '2026-02-30T00:00:00Z' } }), 'target.rules[0].if.date.from'],
      [when({ date: { from: '2026-07-01T00:00:00' } }), 'target.rules[0].if.date.from'],
      [when({ date: { to: '2026-07-01T00:00Z' } }), 'target.rules[0].if.date.to'],
      [when({ date: { to: '2026-07-01T00:00:00+0200' } }), 'target.rules[0].if.date.to'],
      [when({ date: { to: '2026-07-01T24:00:00Z' } }), 'target.rules[0].if.date.to'],
    ])('%j → %s', (target, field) => {
      expect(refusal(target as Record<string, unknown>)).toBe(field);
    });

    it('keeps IANA zones, links among them, and valid RFC 3339 dates with any offset', () => {
      for (const timezone of ['Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta', 'US/Eastern', 'Etc/GMT+5', 'UTC', 'EST5EDT', 'Japan']) {
        expect(refusal(when({ time: { from: '09:00', to: '17:00', timezone } }))).toBeUndefined();
      }
      expect(refusal(when({ time: { days: ['sat', 'sun'], timezone: 'Europe/Paris' } }))).toBeUndefined();
      expect(parse(when({ time: { timezone: 'UTC' } })).rules[0].if.time).toEqual({ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '00:00', to: '00:00', timezone: 'UTC' });
      const target = parse(when({ date: { from: '2028-02-29T23:30:00.5+02:00', to: '2028-03-01T00:00:00-05:30' } }));
      expect(target.rules[0].if.date).toEqual({ from: '2028-02-29T21:30:00.500Z', to: '2028-03-01T05:30:00.000Z' });
    });

    it.each(['country', 'region', 'device', 'os', 'language', 'time', 'date', 'scans'])('refuses a null `%s` condition by its path (omitting it is no condition)', (key) => {
      expect(refusal(when({ [key]: null }))).toBe(`target.rules[0].if.${key}`);
      expect(refusal(rules({ then: { destination: 'https://a.example' } }, { if: { country: ['FR'], [key]: null }, then: { destination: 'https://a.example' } }))).toBe(`target.rules[1].if.${key}`);
      expect(() => parseSmartTarget(new FieldReader(when({ [key]: null }), ''))).toThrow(expect.objectContaining({ code: 'invalid_request', status: 400, extras: expect.objectContaining({ field: `rules[0].if.${key}` }) }));
    });

    it('keeps null bounds inside time, date and scans: the stored (and answered) shape of an open bound', () => {
      const stored = parse(when({ date: { from: null, to: '2026-06-30T23:59:59Z' }, scans: { from: null, to: 100 }, time: { from: null, to: null, timezone: 'UTC' } })).rules[0].if;
      expect(stored).toEqual({ date: { from: null, to: '2026-06-30T23:59:59.000Z' }, scans: { from: null, to: 100 }, time: expect.objectContaining({ from: '00:00', to: '00:00' }) });
      expect(parse(when(stored)).rules[0].if).toEqual(stored);
    });

    it('refuses a repeated rule id', () => {
      const id = 'rul_0123456789abcdefghij';
      expect(refusal(rules({ id, then: { destination: 'https://a.example' } }, { id, then: { destination: 'https://b.example' } }))).toBe('target.rules[1].id');
    });

    it('refuses an `if` of null (omitted or {} is a rule that always matches)', () => {
      expect(refusal(rules({ if: null, then: { destination: 'https://a.example' } }))).toBe('target.rules[0].if');
      expect(parse({ default_url: 'https://d.example', rules: [{ if: {}, then: { destination: 'https://a.example/' } }, { then: { destination: 'https://b.example/' } }] }).rules.map((r) => r.if)).toEqual([{}, {}]);
    });

    it('stores languages in their canonical case and time zones in their IANA spelling; both still match any case', () => {
      const stored = one({ language: ['fr-ca', 'ZH-hant', 'DE'], time: { timezone: 'europe/paris' } }).rules[0].if;
      expect(stored.language).toEqual(['fr-CA', 'zh-Hant', 'de']);
      expect(stored.time?.timezone).toBe('Europe/Paris');
      expect(one({ time: { timezone: 'utc' } }).rules[0].if.time?.timezone).toBe('UTC');
      expect(['asia/kolkata', 'AMERICA/NORTH_DAKOTA/NEW_SALEM', 'Asia/Kolkata'].map((z) => one({ time: { timezone: z } }).rules[0].if.time?.timezone)).toEqual(['Asia/Kolkata', 'America/North_Dakota/New_Salem', 'Asia/Kolkata']);
      const links = ['us/eastern', 'ETC/GMT+5', 'etc/uct', 'Australia/nsw', 'us/east-indiana', 'america/knox_in', 'europe/kyiv'];
      expect(links.map((z) => one({ time: { timezone: z } }).rules[0].if.time?.timezone)).toEqual(['US/Eastern', 'Etc/GMT+5', 'Etc/UCT', 'Australia/NSW', 'US/East-Indiana', 'America/Knox_IN', 'Europe/Kyiv']);
      expect(refusal(when({ time: { timezone: 'pst' } }))).toBe('target.rules[0].if.time.timezone');
      expect(matches({ language: ['fr-ca'] }, { language: 'fr-ca' })).toBe(true);
      expect(matches({ language: ['ZH-hant'] }, { language: 'zh-hant-tw' })).toBe(true);
      expect(matches({ language: ['de-AT'] }, { language: 'de' })).toBe(false);
    });
  });

  it('keeps only the rule ids the code already has; any other id is replaced by a new one', () => {
    const kept = 'rul_0123456789abcdefghij';
    const foreign = 'rul_AAAAAAAAAAAAAAAAAAAA';
    const sent = parse({ default_url: 'https://d.example', rules: [{ id: kept, then: { destination: 'https://a.example/' } }, { id: foreign, then: { destination: 'https://b.example/' } }, { then: { destination: 'https://c.example/' } }] });
    const current: SmartTarget = { default_url: 'https://d.example', rules: [{ id: kept, name: null, if: {}, then: { destination: 'https://old.example/' } }] };
    const edited = keepRuleIds(sent, current).rules.map((r) => r.id);
    expect(edited[0]).toBe(kept);
    expect(edited[1]).not.toBe(foreign);
    expect(edited[1]).toMatch(/^rul_[0-9A-Za-z]{20}$/);
    expect(edited[2]).toMatch(/^rul_[0-9A-Za-z]{20}$/);
    // On creation the code has no rules: every id sent is replaced.
    expect(keepRuleIds(sent, undefined).rules.map((r) => r.id)).not.toContain(kept);
    expect(new Set(keepRuleIds(sent, undefined).rules.map((r) => r.id)).size).toBe(3);
  });

  it("refuses the rule tester's malformed facts by name; null is an unknown fact", () => {
    const tester = (body: Record<string, unknown>): string | undefined => {
      try {
        parseTestFacts(new FieldReader(body, '', true), 1); // as the rule tester reads its body
      } catch (err) {
        if (err instanceof ApiException) return err.extras.field;
        throw err;
      }
      return undefined;
    };
    expect(tester({ country: '' })).toBe('country');
    expect(tester({ device: 'phone' })).toBe('device');
    expect(tester({ scan_number: '3' })).toBe('scan_number');
    expect(tester({ at: '2026-05-06T12:00:00' })).toBe('at');
    expect(tester({ type: 'x' })).toBe('type');
    expect(tester({ country: 'US', region: 'FR-IDF' })).toBe('region');
    expect(tester({ country: 'fr', region: 'FR-IDF' })).toBeUndefined();
    expect(parseTestFacts(new FieldReader({ language: 'FR-ca' }, '', true), 1).language).toBe('fr-ca');
    expect(tester({ country: null, device: null, at: '2026-05-06T12:00:00+02:00', scan_number: 3 })).toBeUndefined();
    expect(parseTestFacts(new FieldReader({ at: '2026-05-06T12:00:00+02:00', country: ' fr ' }, '', true), 1)).toMatchObject({ at: Date.UTC(2026, 4, 6, 10), country: 'FR', scanNumber: 1 });
  });

  it('maps the enrichment vocabulary to the rule vocabulary', () => {
    expect([osOf('iOS'), osOf('Android'), osOf('Windows'), osOf('macOS'), osOf('Ubuntu'), osOf('Tizen'), osOf(null)]).toEqual(['ios', 'android', 'windows', 'macos', 'linux', 'other', null]);
    expect([deviceOf('Mobile'), deviceOf('Tablet'), deviceOf('Desktop'), deviceOf('Smart TV')]).toEqual(['mobile', 'tablet', 'desktop', null]);
  });

  it('tells the scan host which facts its rules read, and decides alike when the others are left null', () => {
    const none = { userAgent: false, place: false, language: false, scanNumber: false };
    const split = parse({ default_url: 'https://d.example', rules: [{ then: { split: [{ destination: 'https://a.example/', weight: 1 }, { destination: 'https://b.example/', weight: 1 }] } }] });
    expect(compileSmartTarget(split).needs).toEqual(none);
    expect(compileSmartTarget(one({ date: { from: '2026-01-01T00:00:00Z' }, time: { days: ['mon'], from: '09:00', to: '17:00', timezone: 'Europe/Paris' } })).needs).toEqual(none);
    expect(compileSmartTarget(one({ os: ['ios'] })).needs).toEqual({ ...none, userAgent: true });
    expect(compileSmartTarget(one({ device: ['mobile'] })).needs).toEqual({ ...none, userAgent: true });
    expect(compileSmartTarget(one({ region: ['US-CA'] })).needs).toEqual({ ...none, place: true });
    expect(compileSmartTarget(one({ country: ['FR'] })).needs).toEqual({ ...none, place: true });
    expect(compileSmartTarget(one({ language: ['fr'] })).needs).toEqual({ ...none, language: true });
    expect(compileSmartTarget(one({ scans: { from: 10 } })).needs).toEqual({ ...none, scanNumber: true });
    const mixed = parse({
      default_url: 'https://d.example',
      rules: [
        { if: { country: ['FR'], date: { to: '2030-01-01T00:00:00Z' } }, then: { destination: 'https://fr.example/' } },
        { if: { os: ['android'], scans: { to: 100 } }, then: { destination: 'https://android.example/' } },
        { if: { date: { from: '2026-01-01T00:00:00Z' } }, then: { destination: 'https://dated.example/' } },
      ],
    });
    const decide = compileSmartTarget(mixed);
    expect(decide.needs).toEqual({ userAgent: true, place: true, language: false, scanNumber: true });
    // The facts the rules do not read (language here) change no decision.
    const full = facts({ country: 'DE', region: 'DE-BE', device: 'mobile', os: 'android', language: 'de', scanNumber: 7 });
    expect(decide({ ...full, language: null }, Math.random)).toEqual(decide(full, Math.random));
    expect(decide(full, Math.random).location).toBe('https://android.example/');
  });
});
