import { createOrg, http, startApi, TestApp, TestOrg, writePlans } from '../setup/app';

const CREATE_CASES: Array<{ name: string; target: Record<string, unknown>; type?: 'static' | 'dynamic'; expectTarget?: Record<string, unknown> }> = [
  { name: 'url', target: { type: 'url', destination: 'https://example.com/menu', utm: { source: 'qr', campaign: 'spring' } } },
  { name: 'youtube', target: { type: 'youtube', destination: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' } },
  { name: 'googleform', target: { type: 'googleform', destination: 'https://docs.google.com/forms/d/e/x/viewform' } },
  { name: 'text', target: { type: 'text', text: 'Hello, world' } },
  { name: 'email', target: { type: 'email', email: 'hi@example.com', subject: 'Hello', message: 'Body', cc: ['cc@example.com'], bcc: 'b1@example.com, b2@example.com' } },
  { name: 'sms', target: { type: 'sms', phone: '+1 (555) 123-4567', message: 'Hi' }, expectTarget: { phone: '+15551234567' } },
  { name: 'wifi', target: { type: 'wifi', ssid: 'Cafe', password: 'espresso42', encryption: 'WPA' } },
  { name: 'event', target: { type: 'event', title: 'Launch', location: 'Berlin', start: '2026-05-01T18:00:00Z', end: '2026-05-01T20:00:00Z' } },
  { name: 'vcard', target: { type: 'vcard', vcard: { your_name: 'Ada Lovelace', company_name: 'Analytical', position: 'CTO', email: 'ada@example.com', phone_mobile: '+441234567890' } } },
  { name: 'whatsapp', target: { type: 'whatsapp', phone: '+15551234567', message: 'Hello' } },
  { name: 'telegram', target: { type: 'telegram', destination: '@scanlink_bot' }, expectTarget: { destination: 'https://t.me/scanlink_bot' } },
  { name: 'location', target: { type: 'location', lat: 48.8584, lng: 2.2945, label: 'Eiffel Tower' } },
  { name: 'appstores', target: { type: 'appstores', ios_url: 'https://apps.apple.com/app/id1', android_url: 'https://play.google.com/store/apps/details?id=x' } },
  { name: 'review', target: { type: 'review', review_page: { title: 'Review us', links: [{ platform: 'google', url: 'https://g.page/r/x' }] } } },
  { name: 'linkpage', target: { type: 'linkpage', title: 'Links', links: [{ title: 'Site', url: 'https://example.com' }, { title: 'Shop', url: 'https://shop.example.com' }] } },
  { name: 'form', target: { type: 'form', title: 'Join', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }] } },
  { name: 'menupage', target: { type: 'menupage', title: 'Menu', sections: [{ name: 'Drinks', items: [{ name: 'Espresso', price: '2.50' }, { name: 'Tea', price: 2 }] }] } },
  { name: 'static url', type: 'static', target: { type: 'url', destination: 'https://example.com/' } },
  { name: 'static text', type: 'static', target: { type: 'text', text: 'Plain text' } },
  { name: 'static email', type: 'static', target: { type: 'email', email: 'hi@example.com' } },
  { name: 'static sms', type: 'static', target: { type: 'sms', phone: '+15551234567' } },
  { name: 'static wifi', type: 'static', target: { type: 'wifi', ssid: 'Guest', encryption: 'nopass' } },
  { name: 'static event', type: 'static', target: { type: 'event', title: 'T', start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z' } },
  { name: 'static vcard', type: 'static', target: { type: 'vcard', vcard: { your_name: 'Ada' } } },
  { name: 'static location', type: 'static', target: { type: 'location', lat: 1.5, lng: -2.25 } },
  { name: 'static wifi from destination', type: 'static', target: { type: 'wifi', destination: 'WIFI:T:WPA;S:My\\;Net;P:secret123;;' }, expectTarget: { ssid: 'My;Net', password: 'secret123', encryption: 'WPA' } },
];

describe('POST /v1/qr-codes', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startApi();
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(() => t.close());

  it.each(CREATE_CASES)('creates and retrieves a $name code', async ({ target, type, expectTarget }) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target, ...(type ? { type } : {}) } });
    expect(res.status).toBe(201);
    const code = res.body;
    const kind = type ?? 'dynamic';
    expect(code.object).toBe('qr_code');
    expect(code.kind).toBe(kind);
    expect(code.id).toMatch(kind === 'dynamic' ? /^qr_[0-9A-Za-z]{16,}$/ : /^sqr_[0-9A-Za-z]{16,}$/);
    expect(code.short_code).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(code.name).toBe(`${kind === 'dynamic' ? 'Campaign' : 'Static'} ${code.short_code}`);
    expect(code.type).toBe(target.type);
    expect(code.target.type).toBe(target.type);
    expect(code.short_url).toBe(kind === 'dynamic' ? `${t.config.scanBaseUrl}/${code.short_code}` : null);
    expect(code.scan_count).toBe(kind === 'dynamic' ? 0 : null);
    expect(code.download_url).toBe(`/v1/qr-codes/${code.id}/download`);
    expect(code.image_url).toMatch(new RegExp(`^${t.config.imageBaseUrl}/`));
    expect(code.is_active).toBe(true);
    expect(code.environment).toBe('live');
    expect(code.folder_id).toBeNull();
    expect(code.tags).toEqual([]);
    expect(code.deleted_at).toBeUndefined();
    const pageHolding = ['appstores', 'review', 'linkpage', 'form', 'menupage'].includes(String(target.type));
    expect(code.target.editable).toBe(kind === 'dynamic' && !pageHolding);
    if (pageHolding) expect(code.target.destination).toBe(code.short_url);
    if (expectTarget) expect(code.target).toMatchObject(expectTarget);
    const got = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(code);
  });

  it('reports utm on dynamic url codes and merges it into static URLs', async () => {
    const utm = { source: 'qr', medium: 'print' };
    const dyn = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/?a=1', utm } } });
    expect(dyn.body.utm).toEqual(utm);
    const stat = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'static', target: { type: 'url', destination: 'https://example.com/?a=1', utm } } });
    expect(stat.body.utm).toBeNull();
    expect(stat.body.target.destination).toBe('https://example.com/?a=1&utm_source=qr&utm_medium=print');
  });

  it('carries summaries for linkpage, form and menupage', async () => {
    const menu = CREATE_CASES.find((c) => c.name === 'menupage')!;
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: menu.target } });
    expect(res.body.target.summary).toEqual({ title: 'Menu', item_count: 2 });
    const form = CREATE_CASES.find((c) => c.name === 'form')!;
    const f = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: form.target } });
    expect(f.body.target.summary).toEqual({ title: 'Join', field_count: 1, lead_count: 0 });
  });

  it('takes name, tags (trimmed, de-duplicated, case kept) and a folder', async () => {
    const folder = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'Spring' } });
    const res = await http(t.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { name: 'Menu', target: { type: 'text', text: 'x' }, tags: [' a ', 'a', 'B', 'b'], folder_id: folder.body.id },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Menu', tags: ['a', 'B', 'b'], folder_id: folder.body.id });
  });

  it('marks codes made with a test key', async () => {
    const testOrg = await createOrg(t, { environment: 'test' });
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: testOrg.apiKey, body: { target: { type: 'text', text: 'x' } } });
    expect(res.body.environment).toBe('test');
  });

  const BAD: Array<[string, Record<string, unknown>, string, number?]> = [
    ['missing target', {}, 'target'],
    ['unknown target type', { target: { type: 'fax' } }, 'target.type'],
    ['missing target type', { target: { destination: 'https://x.com' } }, 'target.type'],
    ['ftp destination', { target: { type: 'url', destination: 'ftp://example.com/x' } }, 'target.destination'],
    ['javascript destination', { target: { type: 'url', destination: 'javascript:alert(1)' } }, 'target.destination'],
    ['relative destination', { target: { type: 'url', destination: '/menu' } }, 'target.destination'],
    ['unknown target field', { target: { type: 'url', destination: 'https://x.com', colour: 1 } }, 'target.colour'],
    ['unknown utm field', { target: { type: 'url', destination: 'https://x.com', utm: { foo: 'x' } } }, 'target.utm.foo'],
    ['long name', { name: 'x'.repeat(256), target: { type: 'text', text: 'x' } }, 'name'],
    ['unknown top-level field', { target: { type: 'text', text: 'x' }, colour: 'red' }, 'colour'],
    ['bad kind', { type: 'semi', target: { type: 'text', text: 'x' } }, 'type'],
    ['static whatsapp', { type: 'static', target: { type: 'whatsapp', phone: '+15551234567' } }, 'type'],
    ['11 tags', { target: { type: 'text', text: 'x' }, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags'],
    ['51-char tag', { target: { type: 'text', text: 'x' }, tags: ['x'.repeat(51)] }, 'tags[0]'],
    ['blank name', { target: { type: 'text', text: 'x' }, name: '   ' }, 'name'],
    ['non-string tag', { target: { type: 'text', text: 'x' }, tags: [1] }, 'tags'],
    ['bad email', { target: { type: 'email', email: 'not-an-email' } }, 'target.email'],
    ['bad phone', { target: { type: 'sms', phone: 'call me' } }, 'target.phone'],
    ['short phone', { target: { type: 'sms', phone: '123' } }, 'target.phone'],
    ['lat out of range', { target: { type: 'location', lat: 91, lng: 0 } }, 'target.lat'],
    ['lng out of range', { target: { type: 'location', lat: 0, lng: -181 } }, 'target.lng'],
    ['end before start', { target: { type: 'event', title: 'T', start: '2026-05-01T18:00:00Z', end: '2026-05-01T17:00:00Z' } }, 'target.end'],
    ['non-ISO start', { target: { type: 'event', title: 'T', start: 'May 1st', end: '2026-05-01T17:00:00Z' } }, 'target.start'],
    ['bad wifi encryption', { target: { type: 'wifi', ssid: 'x', password: 'longenough', encryption: 'WPA3' } }, 'target.encryption'],
    ['short WPA password', { target: { type: 'wifi', ssid: 'x', password: 'short', encryption: 'WPA' } }, 'target.password'],
    ['text over 4000', { target: { type: 'text', text: 'x'.repeat(4001) } }, 'target.text'],
    ['vcard without name', { target: { type: 'vcard', vcard: { company_name: 'x' } } }, 'target.vcard.your_name'],
    ['linkpage link not http', { target: { type: 'linkpage', title: 'x', links: [{ title: 'a', url: 'mailto:a@b.co' }] } }, 'target.links[0].url'],
    ['appstores without urls', { target: { type: 'appstores' } }, 'target.ios_url'],
    ['target not an object', { target: 'https://x.com' }, 'target'],
  ];

  it.each(BAD)('refuses %s with 400 naming the field, creating nothing', async (_name, body, field) => {
    const before = await http(t.origin, 'GET', '/v1/qr-codes?limit=100&kind=all', { key: org.apiKey });
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe(field);
    const after = await http(t.origin, 'GET', '/v1/qr-codes?limit=100&kind=all', { key: org.apiKey });
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('refuses a payload too large for a QR code', async () => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { type: 'static', target: { type: 'text', text: 'é'.repeat(2000) }, design: { error_correction: 'H' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers 404 for a folder of another workspace', async () => {
    const other = await createOrg(t);
    const folder = await http(t.origin, 'POST', '/v1/folders', { key: other.apiKey, body: { name: 'Theirs' } });
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'text', text: 'x' }, folder_id: folder.body.id } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('needs the qr:write scope', async () => {
    const reader = await createOrg(t, { scopes: ['qr:read'] });
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: reader.apiKey, body: { target: { type: 'text', text: 'x' } } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('qr:write');
  });

  describe('plans', () => {
    it('allows only static codes on free', async () => {
      const free = await createOrg(t, { plan: 'free' });
      const dyn = await http(t.origin, 'POST', '/v1/qr-codes', { key: free.apiKey, body: { target: { type: 'url', destination: 'https://x.com' } } });
      expect(dyn.status).toBe(403);
      expect(dyn.body.error.code).toBe('plan_restricted');
      const stat = await http(t.origin, 'POST', '/v1/qr-codes', { key: free.apiKey, body: { type: 'static', target: { type: 'url', destination: 'https://x.com' } } });
      expect(stat.status).toBe(201);
    });

    it('stops at the plan limit even under concurrent creates', async () => {
      const limited = await startApi({ PLANS_FILE: writePlans({ plus: { dynamic_qr_limit: 3, requests_per_minute: 1000 } }) });
      try {
        const o = await createOrg(limited, { plan: 'plus' });
        const results = await Promise.all(
          Array.from({ length: 8 }, () => http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'x' } } })),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(3);
        const refused = results.filter((r) => r.status === 403);
        expect(refused).toHaveLength(5);
        expect(refused[0].body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3, current_count: 3, requested: 1, plan_id: 'plus' });
        const statics = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { type: 'static', target: { type: 'text', text: 'x' } } });
        expect(statics.status).toBe(201);
      } finally {
        await limited.close();
      }
    });
  });
});
