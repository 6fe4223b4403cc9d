import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlans } from './plans';

function file(content: string): string {
  const p = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
  writeFileSync(p, content);
  return p;
}

describe('plans', () => {
  it('has the README plan table by default', () => {
    const plans = loadPlans();
    expect(plans.free).toMatchObject({ dynamic_qr_limit: 0, gs1_limit: 0, batches: false, monthly_requests: 50, requests_per_minute: 10, active_keys: 1 });
    expect(plans.plus.dynamic_qr_limit).toBe(250);
    expect(plans.free).toMatchObject({ storage_bytes: 0, files: 0 });
    expect(plans.plus).toMatchObject({ storage_bytes: 1024 ** 3, files: 1000 });
    expect(plans.agency).toMatchObject({ storage_bytes: 250 * 1024 ** 3, files: 250000 });
    expect(plans.agency).toMatchObject({ dynamic_qr_limit: 25000, gs1_limit: 5000, requests_per_minute: 600, active_keys: 100 });
  });

  it('merges PLANS_FILE over the defaults', () => {
    const plans = loadPlans(file('{"pro": {"requests_per_minute": 100000}, "free": {"monthly_requests": 500}}'));
    expect(plans.pro.requests_per_minute).toBe(100000);
    expect(plans.pro.dynamic_qr_limit).toBe(1000);
    expect(plans.free.monthly_requests).toBe(500);
  });

  it.each([
    ['not json', /not valid JSON/],
    ['{"gold": {}}', /unknown plan "gold"/],
    ['{"pro": {"qr": 1}}', /unknown key "pro.qr"/],
    ['{"pro": {"constructor": 1}}', /unknown key "pro.constructor"/],
    ['{"pro": {"toString": 1}}', /unknown key "pro.toString"/],
    ['{"pro": {"hasOwnProperty": "x"}}', /unknown key "pro.hasOwnProperty"/],
    ['{"pro": {"__proto__": {"x": 1}}}', /unknown key "pro.__proto__"/],
    ['{"pro": {"dynamic_qr_limit": -1}}', /bad value/],
    ['[]', /must hold an object/],
  ])('refuses a malformed file (%s)', (content, message) => {
    expect(() => loadPlans(file(content))).toThrow(message);
  });
});
