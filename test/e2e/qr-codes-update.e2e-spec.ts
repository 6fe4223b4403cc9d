import { createOrg, http, startApi, TestApp, TestOrg, writePlans, db } from '../setup/app';

describe('PATCH, DELETE and restore /v1/qr-codes/{id}', () => {
  let t: TestApp;
  let org: TestOrg;
  const create = async (body: Record<string, unknown>, key = org.apiKey) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key, body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const patch = (id: string, body: unknown, key = org.apiKey) => http(t.origin, 'PATCH', `/v1/qr-codes/${id}`, { key, body });

  beforeAll(async () => {
    t = await startApi();
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(() => t.close());

  it('re-points a dynamic url code and keeps its short URL', async () => {
    const code = await create({ target: { type: 'url', destination: 'https://example.com/a', utm: { source: 'qr' } } });
    const res = await patch(code.id, { name: 'Renamed', target: { destination: 'https://example.com/b' }, tags: ['x'], is_active: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: code.id, name: 'Renamed', short_url: code.short_url, short_code: code.short_code, tags: ['x'], is_active: false });
    expect(res.body.target).toMatchObject({ destination: 'https://example.com/b', utm: { source: 'qr' } });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(code.updated_at) - 1);
    const utm = await patch(code.id, { target: { utm: { campaign: 'c' } } });
    expect(utm.body.utm).toEqual({ source: 'qr', campaign: 'c' });
    const cleared = await patch(code.id, { target: { utm: null } });
    expect(cleared.body.utm).toBeNull();
  });

  it('changes nothing when a PATCH re-sends what is stored (whatever order the database keeps keys in)', async () => {
    const design = { gradient: { start: '#000000', end: '#330000', type: 'radial' }, eye_colors: { frame: '#112233', ball: '#000000' } };
    const target = { destination: 'https://example.com/same', utm: { source: 'qr', campaign: 'c' } };
    const code = await create({ target: { type: 'url', ...target }, design, tags: ['a', 'b'] });
    const first = await patch(code.id, { design, target, tags: ['a', 'b'], name: code.name });
    expect(first.status).toBe(200);
    expect(first.body.updated_at).toBe(code.updated_at);
    expect(first.body.design.gradient).toEqual({ start: '#000000', end: '#330000', type: 'radial' });
    expect(Object.keys(first.body.design.gradient)).toEqual(['start', 'end', 'type']);
    const again = await patch(code.id, { design: { gradient: { type: 'radial', end: '#330000', start: '#000000' } } });
    expect(again.body.updated_at).toBe(code.updated_at);
    const changed = await patch(code.id, { design: { gradient: { end: '#440000' } } });
    expect(changed.body.updated_at).not.toBe(code.updated_at);
  });

  it('updates structured fields and keeps the omitted ones', async () => {
    const wifi = await create({ target: { type: 'wifi', ssid: 'Old', password: 'password1', encryption: 'WPA' } });
    const res = await patch(wifi.id, { target: { ssid: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body.target).toMatchObject({ ssid: 'New', password: 'password1', encryption: 'WPA' });
    const email = await create({ target: { type: 'email', email: 'a@example.com', subject: 'S' } });
    expect((await patch(email.id, { target: { message: 'M' } })).body.target).toMatchObject({ email: 'a@example.com', subject: 'S', message: 'M' });
    const sms = await create({ target: { type: 'sms', phone: '+15551234567', message: 'a' } });
    expect((await patch(sms.id, { target: { message: 'b' } })).body.target).toMatchObject({ phone: '+15551234567', message: 'b' });
    const ev = await create({ target: { type: 'event', title: 'E', start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z' } });
    const evRes = await patch(ev.id, { target: { end: '2026-05-01T17:00:00Z' } });
    expect(evRes.status).toBe(400);
    expect(evRes.body.error.field).toBe('target.end');
    const text = await create({ target: { type: 'text', text: 'a' } });
    expect((await patch(text.id, { target: { text: 'b' } })).body.target.text).toBe('b');
    expect((await patch(text.id, { target: { text: 'x'.repeat(4001) } })).status).toBe(400);
  });

  it.each(['wifi', 'email', 'sms', 'event'])('refuses target.destination on a dynamic %s code', async (type) => {
    const targets: Record<string, object> = {
      wifi: { type: 'wifi', ssid: 'N', password: 'password1' },
      email: { type: 'email', email: 'a@example.com' },
      sms: { type: 'sms', phone: '+15551234567' },
      event: { type: 'event', title: 'E', start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z' },
    };
    const code = await create({ target: targets[type] });
    const res = await patch(code.id, { target: { destination: 'https://example.com' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe('target.destination');
  });

  it('re-points whatsapp and telegram codes to any http(s) page', async () => {
    const wa = await create({ target: { type: 'whatsapp', phone: '+15551234567' } });
    expect((await patch(wa.id, { target: { message: 'hello' } })).body.target).toMatchObject({ phone: '+15551234567', message: 'hello' });
    expect((await patch(wa.id, { target: { destination: 'https://example.com/contact' } })).body.target.destination).toBe('https://example.com/contact');
    const tg = await create({ target: { type: 'telegram', destination: 'https://t.me/somechannel' } });
    expect((await patch(tg.id, { target: { destination: 'https://example.com/tg' } })).body.target.destination).toBe('https://example.com/tg');
    expect((await patch(tg.id, { target: { destination: 'ftp://x.com' } })).status).toBe(400);
  });

  it('moves a location code and turns it into a redirect with a plain destination', async () => {
    const loc = await create({ target: { type: 'location', lat: 1, lng: 2 } });
    const moved = await patch(loc.id, { target: { lat: 3, lng: 4, label: 'Here' } });
    expect(moved.body.target).toMatchObject({ lat: 3, lng: 4, label: 'Here' });
    const half = await patch(loc.id, { target: { lat: 5 } });
    expect(half.status).toBe(400);
    expect(half.body.error.field).toBe('target.lng');
    const redirect = await patch(loc.id, { target: { destination: 'https://maps.example.com/place' } });
    expect(redirect.status).toBe(200);
    expect(redirect.body.type).toBe('url');
    expect(redirect.body.target).toMatchObject({ type: 'url', destination: 'https://maps.example.com/place', editable: true });
  });

  it('refuses target on a page-holding code with 409 and applies nothing', async () => {
    const page = await create({ name: 'Links', target: { type: 'linkpage', title: 'L', links: [{ title: 'a', url: 'https://a.com' }] } });
    const res = await patch(page.id, { name: 'Changed', target: { title: 'New' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('target_not_editable');
    const after = await http(t.origin, 'GET', `/v1/qr-codes/${page.id}`, { key: org.apiKey });
    expect(after.body.name).toBe('Links');
    const ok = await patch(page.id, { name: 'Changed', tags: ['a'], is_active: false });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: 'Changed', tags: ['a'], is_active: false });
  });

  it('lets static codes change only name, folder and design', async () => {
    const code = await create({ type: 'static', target: { type: 'url', destination: 'https://example.com' } });
    const folder = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'F' } });
    const ok = await patch(code.id, { name: 'S', folder_id: folder.body.id, design: { shapes: { body: 'dots' } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: 'S', folder_id: folder.body.id });
    expect(ok.body.design.shapes.body).toBe('dots');
    expect(ok.body.image_url).not.toBe(code.image_url);
    const refused = await patch(code.id, { name: 'Nope', target: { destination: 'https://other.com' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('code_not_editable');
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.name).toBe('S');
    expect((await patch(code.id, { is_active: false })).status).toBe(422);
  });

  it('accepts the current domain_id and refuses another', async () => {
    const code = await create({ target: { type: 'text', text: 'x' } });
    expect((await patch(code.id, { domain_id: null })).status).toBe(200);
    const res = await patch(code.id, { domain_id: 'dom_aaaaaaaaaaaaaaaaaaaa' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('domain_id_immutable');
  });

  it('refuses bad input naming the field: 400, or 404 for a folder that does not exist', async () => {
    const code = await create({ target: { type: 'url', destination: 'https://example.com' } });
    for (const [body, field, status] of [
      [{ name: '' }, 'name', 400],
      [{ name: 'x'.repeat(256) }, 'name', 400],
      [{ is_active: 'no' }, 'is_active', 400],
      [{ colour: 'red' }, 'colour', 400],
      [{ target: { destination: 'nope' } }, 'target.destination', 400],
      [{ target: { type: 'text' } }, 'target.type', 400],
      [{ folder_id: 'fld_doesnotexist00000000' }, 'folder_id', 404],
    ] as const) {
      const res = await patch(code.id, body);
      expect([res.status, res.body.error.field]).toEqual([status, field]);
    }
  });

  it('moves codes to the Trash and restores them with the same id', async () => {
    const code = await create({ target: { type: 'text', text: 'x' } });
    const del = await http(t.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: code.id, object: 'qr_code', deleted: true });
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).status).toBe(404);
    expect((await patch(code.id, { name: 'x' })).status).toBe(404);
    const trash = await http(t.origin, 'GET', '/v1/qr-codes?status=trashed&limit=100', { key: org.apiKey });
    const trashed = trash.body.data.find((c: { id: string }) => c.id === code.id);
    expect(trashed.deleted_at).toEqual(expect.any(String));
    const restored = await http(t.origin, 'POST', `/v1/qr-codes/${code.id}/restore`, { key: org.apiKey });
    expect(restored.status).toBe(200);
    expect(restored.body.id).toBe(code.id);
    expect(restored.body.deleted_at).toBeUndefined();
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).status).toBe(200);
  });

  it('keeps both changes when two PATCHes of one code arrive at once (each merges over what the other left)', async () => {
    for (let round = 0; round < 4; round++) {
      const code = await create({ target: { type: 'email', email: 'a@example.com', subject: 's0', message: 'm0' } });
      const [a, b] = await Promise.all([patch(code.id, { target: { subject: 'S1' } }), patch(code.id, { target: { message: 'M1' } })]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const after = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
      expect([after.body.target.subject, after.body.target.message]).toEqual(['S1', 'M1']);
    }
    const designed = await create({ target: { type: 'url', destination: 'https://example.com/d' } });
    const [shape, colour] = await Promise.all([
      patch(designed.id, { design: { shapes: { body: 'dots' } } }),
      patch(designed.id, { design: { colors: { foreground: '#112233' } } }),
    ]);
    expect([shape.status, colour.status]).toEqual([200, 200]);
    const after = await http(t.origin, 'GET', `/v1/qr-codes/${designed.id}`, { key: org.apiKey });
    expect([after.body.design.shapes.body, after.body.design.colors.foreground]).toEqual(['dots', '#112233']);
  });

  it('sends one qr.updated for the same PATCH sent several times at once (the others change nothing)', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    expect((await http(t.origin, 'POST', '/v1/webhooks', { key: o.apiKey, body: { url: 'https://hooks.example.com/u', events: ['qr.updated'] } })).status).toBe(201);
    const code = (await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'same' } } })).body;
    const named = await Promise.all([1, 2, 3, 4].map(() => http(t.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: o.apiKey, body: { name: 'N1' } })));
    expect(named.map((r) => [r.status, r.body.name])).toEqual([1, 2, 3, 4].map(() => [200, 'N1']));
    const paused = await Promise.all([1, 2, 3, 4].map(() => http(t.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: o.apiKey, body: { is_active: false } })));
    expect(paused.map((r) => [r.status, r.body.is_active])).toEqual([1, 2, 3, 4].map(() => [200, false]));
    const events = await http(t.origin, 'GET', '/v1/events?type=qr.updated', { key: o.apiKey });
    expect(events.body.data).toHaveLength(2);
  });

  it('answers a code moved or created into a folder deleted at the same moment with 404 on folder_id, never 500', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    for (let round = 0; round < 3; round++) {
      const folder = (await http(t.origin, 'POST', '/v1/folders', { key: o.apiKey, body: { name: `Gone ${round}` } })).body;
      const codes = await Promise.all([1, 2, 3, 4].map((n) => http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: `f${n}` } } })));
      const answers = await Promise.all([
        ...codes.map((c) => http(t.origin, 'PATCH', `/v1/qr-codes/${c.body.id as string}`, { key: o.apiKey, body: { folder_id: folder.id } })),
        http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'new' }, folder_id: folder.id } }),
        http(t.origin, 'DELETE', `/v1/folders/${folder.id as string}`, { key: o.apiKey }),
      ]);
      for (const res of answers.slice(0, -1)) {
        expect([200, 201, 404]).toContain(res.status);
        if (res.status === 404) expect(res.body.error).toMatchObject({ code: 'not_found', field: 'folder_id' });
      }
      expect(answers.at(-1)!.status).toBe(200);
      // Whatever won, no code is left in the deleted folder.
      for (const c of codes) expect((await http(t.origin, 'GET', `/v1/qr-codes/${c.body.id as string}`, { key: o.apiKey })).body.folder_id).toBeNull();
    }
  });

  it('answers every one of several restores sent at once with the live code, and emits qr.restored once', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    // Events are kept for workspaces with an endpoint subscribed to them.
    expect((await http(t.origin, 'POST', '/v1/webhooks', { key: o.apiKey, body: { url: 'https://hooks.example.com/r', events: ['qr.restored'] } })).status).toBe(201);
    const code = (await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'twice' } } })).body;
    await http(t.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: o.apiKey });
    const answers = await Promise.all([1, 2, 3].map(() => http(t.origin, 'POST', `/v1/qr-codes/${code.id}/restore`, { key: o.apiKey })));
    expect(answers.map((r) => [r.status, r.body.id, 'deleted_at' in r.body])).toEqual([1, 2, 3].map(() => [200, code.id, false]));
    const events = await http(t.origin, 'GET', '/v1/events?type=qr.restored', { key: o.apiKey });
    expect(events.body.data).toHaveLength(1);
  });

  it('re-checks the plan limit on restore', async () => {
    const limited = await startApi({ PLANS_FILE: writePlans({ plus: { dynamic_qr_limit: 1, requests_per_minute: 1000 } }) });
    try {
      const o = await createOrg(limited, { plan: 'plus' });
      const a = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'a' } } });
      await http(limited.origin, 'DELETE', `/v1/qr-codes/${a.body.id}`, { key: o.apiKey });
      const b = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'b' } } });
      expect(b.status).toBe(201);
      const res = await http(limited.origin, 'POST', `/v1/qr-codes/${a.body.id}/restore`, { key: o.apiKey });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 1, current_count: 1 });
      // The last free place, asked for by three restores of one code at once: the code is restored, and all three
      // answer with it (the others find it live).
      await http(limited.origin, 'DELETE', `/v1/qr-codes/${b.body.id}`, { key: o.apiKey });
      const answers = await Promise.all([1, 2, 3].map(() => http(limited.origin, 'POST', `/v1/qr-codes/${a.body.id}/restore`, { key: o.apiKey })));
      expect(answers.map((r) => [r.status, r.body.id, 'deleted_at' in r.body])).toEqual([1, 2, 3].map(() => [200, a.body.id, false]));
    } finally {
      await limited.close();
    }
  });

  it('answers 404 for codes of another workspace on every route', async () => {
    const code = await create({ target: { type: 'text', text: 'x' } });
    const other = await createOrg(t);
    for (const [method, path, body] of [
      ['GET', `/v1/qr-codes/${code.id}`],
      ['PATCH', `/v1/qr-codes/${code.id}`, { name: 'x' }],
      ['DELETE', `/v1/qr-codes/${code.id}`],
      ['POST', `/v1/qr-codes/${code.id}/restore`],
      ['GET', `/v1/qr-codes/${code.id}/download`],
    ] as const) {
      const res = await http(t.origin, method, path, { key: other.apiKey, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('empties the Trash and pauses codes on downgrade through the CLI service functions', async () => {
    const { pauseAboveLimit, purgeTrash } = await import('../../src/modules/qr-codes/qr-lifecycle');
    const o = await createOrg(t, { plan: 'pro' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ target: { type: 'text', text: `t${i}` } }, o.apiKey)).id);
    await http(t.origin, 'DELETE', `/v1/qr-codes/${ids[0]}`, { key: o.apiKey });
    const em = db(t);
    for (const [i, id] of ids.entries()) await em.execute(`update qr_codes set created_at = now() - (? || ' minutes')::interval where id = ?`, [10 - i, id]);
    const paused = await pauseAboveLimit(em, o.organizationId, 1);
    expect(paused.map((p) => p.id)).toEqual([ids[2]]);
    const pausedList = await http(t.origin, 'GET', '/v1/qr-codes?status=paused', { key: o.apiKey });
    expect(pausedList.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    expect(pausedList.body.data[0].deleted_at).toEqual(expect.any(String));
    const purged = await purgeTrash(em, { organizationId: o.organizationId });
    expect(purged.deleted).toBe(1);
    expect((await http(t.origin, 'GET', '/v1/qr-codes?status=paused', { key: o.apiKey })).body.data).toHaveLength(1);
    // The permanent deletion is in the audit log, by the system (outside any request).
    const audit = await http(t.origin, 'GET', `/v1/audit-log?resource_id=${ids[0]}&action=qr_code.purged`, { key: o.apiKey });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ actor: { type: 'system', id: 'system' }, resource: { type: 'qr_code', id: ids[0] }, changes: { status: ['trashed', null] } });
  });
});
