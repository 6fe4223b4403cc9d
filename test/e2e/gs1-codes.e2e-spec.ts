import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { createOrg, db, eventually, http, isolatedRedisUrl, startApi, startWorker, TestApp, TestOrg, writePlans } from '../setup/app';

/** GS1 Digital Link codes through the API: creation, uniqueness and retirement, plan rules, PATCH, batch items. */
describe('GS1 Digital Link codes', () => {
  let api: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;
  let scanOrigin: string;

  beforeAll(async () => {
    api = await startApi();
    worker = await startWorker();
    org = await createOrg(api, { plan: 'pro' });
    scanOrigin = new URL(api.config.scanBaseUrl).origin;
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await closeDecoders();
  });

  const post = (body: Record<string, unknown>, who: TestOrg = org) => http(api.origin, 'POST', '/v1/qr-codes', { key: who.apiKey, body });
  const patch = (id: string, body: Record<string, unknown>) => http(api.origin, 'PATCH', `/v1/qr-codes/${id}`, { key: org.apiKey, body });
  const pngOf = async (id: string, who: TestOrg): Promise<Buffer> => {
    const res = await fetch(`${api.origin}/v1/qr-codes/${id}/download?format=png&size=600`, { headers: { authorization: `Bearer ${who.apiKey}` } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const gs1 = (gtin: string, extra: Record<string, unknown> = {}) => ({
    type: 'gs1',
    primary_key: { ai: '01', value: gtin },
    destination: 'https://brand.example/product',
    ...extra,
  });

  describe('POST /v1/qr-codes with type gs1', () => {
    it('creates a dynamic code whose image decodes to exactly its Digital Link URI', async () => {
      const gtin = randomGtin();
      const res = await post(
        gs1(gtin, {
          name: 'Crew neck T-shirt',
          qualifiers: [{ ai: '10', value: 'LOT&42' }],
          attributes: { '17': '271231' },
          links: [{ linkType: 'gs1:pip', href: 'https://brand.example/en/pip', hreflang: ['en'] }],
          overrides: [{ path: '10/LOT&42/21/7', href: 'https://brand.example/serial/7' }],
        }),
      );
      expect(res.status).toBe(201);
      const uri = `${scanOrigin}/01/${gtin}/10/LOT%2642?17=271231`;
      expect(res.body).toMatchObject({ kind: 'dynamic', type: 'gs1', name: 'Crew neck T-shirt', short_url: uri, scan_count: 0 });
      expect(res.body.id).toMatch(/^qr_/);
      expect(res.body.target).toEqual({
        type: 'gs1',
        mode: 'dynamic',
        destination: uri,
        primary_key: { ai: '01', value: gtin },
        qualifiers: [{ ai: '10', value: 'LOT&42' }],
        attributes: { '17': '271231' },
        default_link: 'https://brand.example/product',
        links: [{ linkType: 'https://gs1.org/voc/pip', href: 'https://brand.example/en/pip', hreflang: ['en'] }],
        overrides: [{ path: '10/LOT%2642/21/7', href: 'https://brand.example/serial/7' }],
        domain: null,
        editable: false,
      });
      expect(await decodeBoth(await pngOf(res.body.id, org))).toEqual({ zxing: uri, qr: uri });
      expect((await http(api.origin, 'GET', `/v1/qr-codes/${res.body.id}`, { key: org.apiKey })).body.target.destination).toBe(uri);
    });

    it('pads a GTIN-13 to 14 digits and names an unnamed code after its URI', async () => {
      const gtin = randomGtin();
      const res = await post(gs1(gtin.slice(1)));
      expect(res.status).toBe(201);
      expect(res.body.target.primary_key).toEqual({ ai: '01', value: gtin });
      expect(res.body.name).toBe(`${scanOrigin}/01/${gtin}`);
      // Listed by its type, as the response names it.
      const listed = await http(api.origin, 'GET', '/v1/qr-codes?type=gs1&limit=100', { key: org.apiKey });
      expect([listed.status, listed.body.data.map((c: { id: string }) => c.id)]).toEqual([200, expect.arrayContaining([res.body.id])]);
      expect(listed.body.data.every((c: { type: string }) => c.type === 'gs1')).toBe(true);
    });

    it('creates a static code for the customer resolver on the free plan, uncapped, encoding https://<domain>/01/…', async () => {
      const free = await createOrg(api, { plan: 'free' });
      const gtin = randomGtin();
      const res = await post({ type: 'gs1', mode: 'static', primary_key: { ai: '01', value: gtin }, domain: 'ID.Brand.example' }, free);
      expect(res.status).toBe(201);
      const uri = `https://id.brand.example/01/${gtin}`;
      expect(res.body).toMatchObject({ kind: 'static', type: 'gs1', short_url: null, scan_count: null });
      expect(res.body.id).toMatch(/^sqr_/);
      expect(res.body.target).toMatchObject({ mode: 'static', destination: uri, domain: 'id.brand.example', default_link: null, editable: false });
      expect(await decodeBoth(await pngOf(res.body.id, free))).toEqual({ zxing: uri, qr: uri });
      // Static identifiers live on the customer's resolver: the same one again is fine.
      expect((await post({ type: 'gs1', mode: 'static', primary_key: { ai: '01', value: gtin }, domain: 'id.brand.example' }, free)).status).toBe(201);
    });

    it('refuses dynamic GS1 codes on the free plan with gs1_code NOT_ENTITLED', async () => {
      const free = await createOrg(api, { plan: 'free' });
      const res = await post(gs1(randomGtin()), free);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'plan_restricted', gs1_code: 'NOT_ENTITLED', plan_id: 'free' });
    });

    it.each([
      ['a wrong check digit', { primary_key: { ai: '01', value: '09520123456789' } }, 'GS1_CHECK_DIGIT', 'primary_key.value'],
      ['qualifiers out of order', { qualifiers: [{ ai: '21', value: '1' }, { ai: '10', value: 'A' }] }, 'GS1_QUALIFIER_ORDER', undefined],
      ['235 mixed with 10', { qualifiers: [{ ai: '10', value: 'A' }, { ai: '235', value: 'TPX' }] }, 'GS1_QUALIFIER_ORDER', undefined],
      ['an unknown AI', { qualifiers: [{ ai: '89', value: 'A' }] }, 'GS1_UNKNOWN_AI', 'qualifiers[0].ai'],
      ['a qualifier given as an attribute', { attributes: { '10': 'ABC' } }, 'GS1_QUALIFIER_IN_QUERY', 'attributes.10'],
      ['month 13', { attributes: { '17': '261331' } }, 'GS1_VALUE_FORMAT', 'attributes.17'],
      ['a lot over 20 characters', { qualifiers: [{ ai: '10', value: 'ABCDEFGHIJKLMNOPQRSTU' }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
      ['a character outside CSET 82', { qualifiers: [{ ai: '10', value: 'AB~C' }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
      ['an unknown link type', { links: [{ linkType: 'gs1:nosuchthing', href: 'https://x.example' }] }, 'GS1_INVALID_LINK_TYPE', 'links[0].linkType'],
      ['an override above the code', { overrides: [{ path: '21/1/10/A', href: 'https://x.example' }] }, 'GS1_QUALIFIER_ORDER', 'overrides[0].path'],
    ])('refuses %s: 400 gs1_invalid with gs1_code and field', async (_what, extra, gs1Code, field) => {
      const res = await post(gs1(randomGtin(), extra));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'gs1_invalid', gs1_code: gs1Code });
      if (field) expect(res.body.error.field).toBe(field);
      else expect(res.body.error.field).toMatch(/^qualifiers/);
    });

    it.each([
      ['no primary_key', { type: 'gs1', destination: 'https://x.example' }, 'primary_key'],
      ['an unknown field', { ...{ type: 'gs1', primary_key: { ai: '01', value: '09506000134352' }, destination: 'https://x.example' }, target: {} }, 'target'],
      ['a dynamic code without destination', { type: 'gs1', primary_key: { ai: '01', value: '09506000134352' } }, 'destination'],
      ['a static code without domain', { type: 'gs1', mode: 'static', primary_key: { ai: '01', value: '09506000134352' } }, 'domain'],
      ['links on a static code', { type: 'gs1', mode: 'static', domain: 'id.brand.example', primary_key: { ai: '01', value: '09506000134352' }, links: [] }, 'links'],
      ['a domain that is a URL', { type: 'gs1', mode: 'static', domain: 'https://id.brand.example/', primary_key: { ai: '01', value: '09506000134352' } }, 'domain'],
      ['a destination that is not http(s)', { type: 'gs1', primary_key: { ai: '01', value: '09506000134352' }, destination: 'ftp://x.example' }, 'destination'],
      ['a target type gs1 in a standard body', { target: { type: 'gs1' } }, 'target.type'],
    ])('refuses %s: 400 invalid_request naming the field', async (_what, body, field) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field });
    });

    it('keeps an identifier unique on the host across workspaces while live or trashed, then retires it', async () => {
      const other = await createOrg(api, { plan: 'pro' });
      const gtin = randomGtin();
      const body = gs1(gtin, { qualifiers: [{ ai: '10', value: 'L1' }] });
      const first = await post(body);
      expect(first.status).toBe(201);
      const taken = await post(body, other);
      expect(taken.status).toBe(409);
      expect(taken.body.error).toMatchObject({ code: 'gs1_identifier_taken', gs1_code: 'GS1_IDENTIFIER_TAKEN' });
      // Attributes are not part of the identifier; another lot is another identifier, but the GTIN's subtree belongs
      // to the workspace holding it (docs/gs1.md "Ownership"): only that workspace may add lots.
      expect((await post({ ...body, attributes: { '17': '300101' } }, other)).status).toBe(409);
      const otherLot = await post(gs1(gtin, { qualifiers: [{ ai: '10', value: 'L2' }] }), other);
      expect(otherLot.status).toBe(409);
      expect(otherLot.body.error).toMatchObject({ code: 'gs1_identifier_taken', gs1_code: 'GS1_IDENTIFIER_TAKEN' });
      const ownLot = await post(gs1(gtin, { qualifiers: [{ ai: '10', value: 'L3' }] }));
      expect(ownLot.status).toBe(201);

      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${first.body.id}`, { key: org.apiKey })).status).toBe(200);
      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${ownLot.body.id}`, { key: org.apiKey })).status).toBe(200);
      expect((await post(body, other)).body.error.code).toBe('gs1_identifier_taken');
      await purgeTrash(db(api), { organizationId: org.organizationId, gs1RetirementDays: 365 });
      const retired = await post(body, other);
      expect(retired.status).toBe(409);
      expect(retired.body.error).toMatchObject({ code: 'gs1_identifier_retired', gs1_code: 'GS1_IDENTIFIER_RETIRED' });
    });

    it('frees an identifier at once when GS1_RETIREMENT_DAYS is 0', async () => {
      const body = gs1(randomGtin());
      const created = await post(body);
      await http(api.origin, 'DELETE', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey });
      await purgeTrash(db(api), { organizationId: org.organizationId, gs1RetirementDays: 0 });
      expect((await post(body)).status).toBe(201);
    });

    it('counts dynamic GS1 codes against the GS1 limit, apart from the QR limit', async () => {
      const small = await startApi({ PLANS_FILE: writePlans({ plus: { dynamic_qr_limit: 1, gs1_limit: 1, requests_per_minute: 100000 } }) });
      try {
        const o = await createOrg(small, { plan: 'plus' });
        const at = (body: Record<string, unknown>) => http(small.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body });
        expect((await at({ target: { type: 'url', destination: 'https://example.com' } })).status).toBe(201);
        expect((await at(gs1(randomGtin()))).status).toBe(201);
        const over = await at(gs1(randomGtin()));
        expect(over.status).toBe(403);
        expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 1, current_count: 1, plan_id: 'plus' });
        expect((await at({ target: { type: 'url', destination: 'https://example.com/2' } })).body.error.code).toBe('plan_limit_reached');
        expect((await at({ type: 'gs1', mode: 'static', domain: 'id.brand.example', primary_key: { ai: '01', value: randomGtin() } })).status).toBe(201);
      } finally {
        await small.close();
      }
    });
  });

  it('documents the GS1 request and response schemas, with examples, in the served OpenAPI document', async () => {
    const doc = (await (await fetch(`${api.origin}/docs/openapi.json`)).json()) as any;
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['CreateGs1QrCodeDto', 'Gs1TargetResponseDto', 'Gs1LinkDto', 'Gs1OverrideDto']));
    const body = doc.paths['/v1/qr-codes'].post.requestBody.content['application/json'];
    expect(body.schema.oneOf).toEqual(expect.arrayContaining([{ $ref: '#/components/schemas/CreateGs1QrCodeDto' }]));
    expect(body.examples.gs1.value).toMatchObject({ type: 'gs1', primary_key: { ai: '01' } });
    expect(doc.components.schemas.CreateGs1QrCodeDto.properties.primary_key).toBeDefined();
  });

  describe('PATCH /v1/qr-codes/{id} on GS1 codes', () => {
    it('changes destination, links and overrides at the top level, keeping the identifier and URI', async () => {
      const gtin = randomGtin();
      const created = await post(gs1(gtin));
      const res = await patch(created.body.id, {
        destination: 'https://brand.example/v2',
        links: [{ linkType: 'https://gs1.org/voc/instructions', href: 'https://brand.example/manual', title: 'Manual' }],
        overrides: [{ path: '10/B1', href: 'https://brand.example/b1' }],
        name: 'Renamed',
        tags: ['retail'],
        is_active: false,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Renamed', tags: ['retail'], is_active: false, short_url: `${scanOrigin}/01/${gtin}` });
      expect(res.body.target).toMatchObject({
        destination: `${scanOrigin}/01/${gtin}`,
        default_link: 'https://brand.example/v2',
        links: [{ linkType: 'https://gs1.org/voc/instructions', href: 'https://brand.example/manual', title: 'Manual' }],
        overrides: [{ path: '10/B1', href: 'https://brand.example/b1' }],
      });
    });

    it.each([['primary_key', { ai: '01', value: '09506000134352' }], ['qualifiers', []], ['attributes', {}], ['domain', 'x.example'], ['mode', 'static'], ['gs1_key', '/01/1'], ['domain_id', null]])(
      'refuses %s (even its current value): 422 gs1_identifier_immutable, nothing applied',
      async (field, value) => {
        const created = await post(gs1(randomGtin()));
        const res = await patch(created.body.id, { name: 'Not applied', [field]: value });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'gs1_identifier_immutable', gs1_code: 'GS1_IDENTIFIER_IMMUTABLE', field });
        expect((await http(api.origin, 'GET', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey })).body.name).toBe(created.body.name);
      },
    );

    it('refuses target (409), bad links (400 gs1_invalid) and GS1 fields on other codes (400)', async () => {
      const created = await post(gs1(randomGtin()));
      expect((await patch(created.body.id, { target: { destination: 'https://x.example' } })).body.error.code).toBe('target_not_editable');
      const bad = await patch(created.body.id, { links: [{ linkType: 'gs1:defaultLink', href: 'https://x.example' }] });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'gs1_invalid', gs1_code: 'GS1_INVALID_LINK_TYPE', field: 'links[0].linkType' });
      const url = await post({ target: { type: 'url', destination: 'https://example.com' } });
      const res = await patch(url.body.id, { links: [] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'links' });
      const stat = await post({ type: 'gs1', mode: 'static', domain: 'id.brand.example', primary_key: { ai: '01', value: randomGtin() } });
      expect((await patch(stat.body.id, { destination: 'https://x.example' })).body.error.code).toBe('code_not_editable');
      expect((await patch(stat.body.id, { name: 'Static renamed' })).status).toBe(200);
    });
  });

  describe('POST /v1/batches with GS1 items', () => {
    it('refuses up front, with 403 plan_limit_reached, a batch whose dynamic GS1 items exceed the GS1 allowance, and reserves GS1 room for an accepted one', async () => {
      // An api on its own Redis: no worker runs the accepted batch, so its reservation stays while the test looks.
      const redis = isolatedRedisUrl(2);
      const limited = await startApi({ REDIS_URL: redis, PLANS_FILE: writePlans({ plus: { gs1_limit: 3, requests_per_minute: 100_000 } }) });
      try {
        const o = await createOrg(limited, { plan: 'plus' });
        const batch = (items: unknown[]) => http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items } });
        expect((await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: gs1(randomGtin()) })).status).toBe(201);

        const over = await batch([gs1(randomGtin()), gs1(randomGtin()), gs1(randomGtin())]);
        expect(over.status).toBe(403);
        expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3, current_count: 1, requested: 3, plan_id: 'plus' });
        expect((await http(limited.origin, 'GET', '/v1/batches', { key: o.apiKey })).body.data).toEqual([]);

        // Static GS1 items and ordinary items take no GS1 room.
        const statics = { type: 'gs1', mode: 'static', domain: 'id.brand.example', primary_key: { ai: '01', value: randomGtin() } };
        const accepted = await batch([gs1(randomGtin()), statics, { target: { type: 'text', text: 'x' } }]);
        expect(accepted.status).toBe(202);
        // Held as if a worker had claimed every item for an hour (so the sweepers of other workers leave it alone).
        await db(limited).execute(`update batch_items set claim = 'held', claimed_until = now() + interval '1 hour' where batch_id = ?`, [accepted.body.id]);
        const [row] = await db(limited).execute<{ dynamic_count: number; gs1_count: number }[]>('select dynamic_count, gs1_count from qr_capacity_reservations where holder = ?', [
          accepted.body.id,
        ]);
        expect(row).toEqual({ dynamic_count: 1, gs1_count: 1 });
        // 1 live + 1 reserved of 3: one single GS1 creation fits, the next would take the batch's room.
        expect((await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: gs1(randomGtin()) })).status).toBe(201);
        const stolen = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: gs1(randomGtin()) });
        expect(stolen.status).toBe(403);
        expect(stolen.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3, current_count: 3, requested: 1 });
        expect((await batch([gs1(randomGtin())])).body.error).toMatchObject({ code: 'plan_limit_reached', current_count: 3, requested: 1 });
      } finally {
        await limited.close();
      }
    });

    it('completes every item of a batch whose dynamic GS1 items exactly fill the GS1 allowance', async () => {
      // Its own Redis, api and worker: the batch runs under this plan file, not the shared worker's.
      const env = { REDIS_URL: isolatedRedisUrl(23), PLANS_FILE: writePlans({ plus: { gs1_limit: 3, requests_per_minute: 100_000 } }) };
      const limited = await startApi(env);
      const ownWorker = await startWorker(env);
      try {
        const o = await createOrg(limited, { plan: 'plus' });
        expect((await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: gs1(randomGtin()) })).status).toBe(201);
        const res = await http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items: [gs1(randomGtin()), gs1(randomGtin())] } });
        expect(res.status).toBe(202);
        const done = await eventually(async () => {
          const b = await http(limited.origin, 'GET', `/v1/batches/${res.body.id}`, { key: o.apiKey });
          return b.body.status === 'completed' ? b.body : undefined;
        }, 30_000, 'the batch');
        expect(done.items.map((i: { status: string; error: string | null }) => [i.status, i.error])).toEqual([
          ['completed', null],
          ['completed', null],
        ]);
        const over = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: gs1(randomGtin()) });
        expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3, current_count: 3 });
      } finally {
        await ownWorker.close();
        await limited.close();
      }
    });

    it('creates GS1 items like single ones; a taken, retired or invalid identifier fails that item with its gs1_code', async () => {
      const takenGtin = randomGtin();
      await post(gs1(takenGtin));
      const fresh = randomGtin();
      const res = await http(api.origin, 'POST', '/v1/batches', {
        key: org.apiKey,
        body: {
          items: [
            gs1(fresh, { name: 'ok' }),
            gs1(takenGtin, { name: 'taken' }),
            gs1('09520123456789', { name: 'bad check digit' }),
            { type: 'gs1', mode: 'static', domain: 'id.brand.example', primary_key: { ai: '01', value: fresh }, name: 'static' },
            { name: 'url', target: { destination: 'https://example.com' } },
          ],
        },
      });
      expect(res.status).toBe(202);
      const done = await eventually(async () => {
        const b = await http(api.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
        return b.body.status === 'completed' ? b.body : undefined;
      }, 30_000, 'the batch');
      expect(done.items.map((i: { status: string; gs1_code: string | null; type: string }) => [i.status, i.gs1_code, i.type])).toEqual([
        ['completed', null, 'gs1'],
        ['failed', 'GS1_IDENTIFIER_TAKEN', 'gs1'],
        ['failed', 'GS1_CHECK_DIGIT', 'gs1'],
        ['completed', null, 'gs1'],
        ['completed', null, 'url'],
      ]);
      const code = await http(api.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id}`, { key: org.apiKey });
      expect(code.body.target.destination).toBe(`${scanOrigin}/01/${fresh}`);
      expect(done.items[1].error).toMatch(/already exists/);
    });
  });
});
