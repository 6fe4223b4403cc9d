import { DashboardAuthService } from '../../src/modules/tokens/dashboard-auth.service';
import { createOrg, http, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { callTool, httpClient } from '../setup/mcp';
import { addMember, signIn } from '../setup/members';

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[] };
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema?: Schema }[];
  body?: Schema;
  /** The operation takes a dashboard session token only (members, users, session switch). */
  sessionOnly?: boolean;
}

const BAD_STRINGS: [string, string][] = [
  ['U+0000', 'a\u0000b'],
  ['an escape character', 'a\u001bb'],
  ['a lone surrogate', 'a\ud800b'],
];

/** Object keys named like `Object.prototype` members: unknown fields wherever they appear (never a 500, never ignored). */
const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__'];

/** `{[key]: value}` as an own property, `__proto__` included (an object literal would set the prototype instead). */
const own = (key: string, value: unknown): Record<string, unknown> => JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`);

/**
 * Bad input on every operation of the OpenAPI document: U+0000, other C0 controls and lone surrogates in any body
 * field, query parameter or path parameter, and bodies nested 10,000 levels deep, all answer 400 in the envelope
 * (never 500), naming the field.
 */
describe('bad input on every documented operation', () => {
  let api: TestApp;
  let org: TestOrg;
  let token: string;
  let memberToken: string;
  let operations: Operation[];
  let components: Record<string, Schema>;

  const resolve = (s: Schema | undefined): Schema | undefined => {
    if (!s) return undefined;
    if (s.$ref) return resolve(components[s.$ref.split('/').pop()!]);
    if (s.allOf) return resolve(s.allOf[0]);
    return s;
  };
  const credential = (path: string) =>
    path.startsWith('/v1/tokens') ? token : operations.find((o) => o.path === path && o.sessionOnly) ? memberToken : org.apiKey;
  const urlOf = (op: Operation) => op.path.replace(/\{(\w+)\}/g, 'xyz0000000000000000');

  beforeAll(async () => {
    api = await startApi();
    org = await createOrg(api, { plan: 'pro' });
    token = await api.app.get(DashboardAuthService).mint({ organizationId: org.organizationId, email: 'o@example.com', emailVerified: true, expiresInSeconds: 600 });
    const owner = `bad-input-${org.organizationId.toLowerCase()}@example.com`;
    await addMember(api, org.organizationId, owner, 'owner');
    memberToken = (await signIn(api, owner)).token;
    const doc = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
    components = doc.components?.schemas ?? {};
    operations = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        operations.push({
          method: method.toUpperCase(),
          path,
          params: op.parameters ?? [],
          body: op.requestBody?.content?.['application/json']?.schema,
          sessionOnly: Array.isArray(op.security) && op.security.length > 0 && op.security.every((s: object) => Object.keys(s).join() === 'dashboard_token'),
        });
      }
    }
    expect(operations.length).toBeGreaterThan(20);
  });
  afterAll(() => api?.close());

  const expect400 = (res: { status: number; body: any; headers: Headers }, what: string, field?: string) => {
    if (res.status !== 400) throw new Error(`${what}: expected 400, got ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.request_id).toBe(res.headers.get('request-id'));
    if (field !== undefined && res.body.error.field !== field) throw new Error(`${what}: expected field ${field}, got ${JSON.stringify(res.body.error)}`);
  };

  it.each(BAD_STRINGS)('refuses %s in every body field with 400 naming it', async (_name, bad) => {
    let checked = 0;
    for (const op of operations.filter((o) => o.body)) {
      const props = Object.keys(resolve(op.body)?.properties ?? {});
      for (const prop of props) {
        const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), body: { [prop]: bad } });
        expect400(res, `${op.method} ${op.path} body.${prop}`, prop);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it.each(BAD_STRINGS)('refuses %s in every query and path parameter with 400 naming it', async (_name, bad) => {
    let checked = 0;
    for (const op of operations) {
      for (const p of op.params.filter((x) => x.in === 'query' || x.in === 'path')) {
        // A lone surrogate has no UTF-8 form: its would-be bytes (ED A0 80) are sent, which decode to U+FFFD.
        const encoded = bad.includes('\ud800') ? 'a%ED%A0%80b' : encodeURIComponent(bad);
        const url = p.in === 'path' ? op.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === p.name ? encoded : 'xyz0000000000000000')) : `${urlOf(op)}?${p.name}=${encoded}`;
        const res = await http(api.origin, op.method, url, { key: credential(op.path), body: op.body ? {} : undefined });
        if (bad.includes('\ud800')) {
          // Its bytes decode to U+FFFD, a valid character: a value like any other (200 on a list, 404 for an id), or a
          // 400 naming the parameter; always in the error envelope when refused, never 5xx.
          const what = `${op.method} ${op.path} ${p.in} ${p.name}`;
          if (res.status < 400) expect([what, res.status]).toEqual([what, 200]);
          else {
            expect([what, res.status, res.body.error.code]).toEqual([what, res.status, res.status === 404 ? 'not_found' : 'invalid_request']);
            expect([what, [400, 404].includes(res.status), res.body.error.request_id]).toEqual([what, true, res.headers.get('request-id')]);
          }
        } else expect400(res, `${op.method} ${op.path} ${p.in} ${p.name}`, p.name);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });

  it('refuses a form-encoded or text/plain body on every operation that takes one, so no cross-site HTML form reaches the API', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
      for (const op of operations.filter((o) => o.body)) {
        const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: 'name=x&email=a%40example.com', headers: { 'content-type': type } });
        expect400(res, `${op.method} ${op.path} ${type}`);
        expect(res.body.error.message).toMatch(/^Unsupported Content-Type/);
      }
    }
    // A form-encoded sign-in with the right password: no session, no refresh cookie.
    const email = `form-${org.organizationId.toLowerCase()}@example.com`;
    await addMember(api, org.organizationId, email, 'viewer', 'correct horse battery');
    const form = await http(api.origin, 'POST', '/v1/session', {
      rawBody: `email=${encodeURIComponent(email)}&password=correct+horse+battery`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect400(form, 'form-encoded sign-in');
    expect(form.headers.get('set-cookie')).toBeNull();
    const json = await http(api.origin, 'POST', '/v1/session', { body: { email, password: 'correct horse battery' } });
    expect(json.status).toBe(200);
  });

  it('refuses a JSON body of null on every POST, PATCH and PUT (null is not an empty body), changing nothing', async () => {
    // A code in the Trash: POST /trash/empty with a null body used to empty it.
    const code = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: 'kept in the Trash', target: { type: 'url', destination: 'https://example.com' } } });
    expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${code.body.id}`, { key: org.apiKey })).status).toBeLessThan(300);
    const writes = operations.filter((o) => ['POST', 'PATCH', 'PUT'].includes(o.method));
    expect(writes.length).toBeGreaterThan(20);
    for (const op of writes) {
      const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: 'null' });
      expect400(res, `${op.method} ${op.path} null body`);
      expect(res.body.error.message).toBe('The body must be a JSON object, not null');
    }
    const trashed = await http(api.origin, 'GET', '/v1/qr-codes?status=trashed', { key: org.apiKey });
    expect(trashed.body.data.map((c: { id: string }) => c.id)).toContain(code.body.id);
  });

  it('refuses a body nested 10,000 levels deep on every operation that takes one', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    for (const op of operations.filter((o) => o.body)) {
      const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: `{"name":${deep}}` });
      expect400(res, `${op.method} ${op.path} deep body`);
      expect(res.body.error.message).toMatch(/deeper than/);
    }
  });

  it('answers 413 payload_too_large to a body over 2 MB on every operation that takes one, writing nothing', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024 + 1) });
    for (const op of operations.filter((o) => o.body)) {
      const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: big });
      if (res.status !== 413) throw new Error(`${op.method} ${op.path}: expected 413, got ${res.status} ${res.text.slice(0, 200)}`);
      expect(res.body.error).toMatchObject({ code: 'payload_too_large', request_id: res.headers.get('request-id') });
      expect(res.body.error.message).toMatch(/larger than the limit \(2 MB\)/);
    }
    expect((await http(api.origin, 'GET', '/v1/folders', { key: org.apiKey })).body.data.filter((f: { name: string }) => f.name.startsWith('xxxx'))).toEqual([]);
    // Just under the limit is read (and then judged on its content: a name that long is a 400 naming it).
    const under = await http(api.origin, 'POST', '/v1/folders', { key: org.apiKey, rawBody: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024 - 20) }) });
    expect400(under, 'a body just under the limit', 'name');
  });

  it('refuses prototype-named keys at the top of every body, and under every body field at several depths, with 400 naming them', async () => {
    let checked = 0;
    for (const op of operations.filter((o) => o.body)) {
      const props = Object.keys(resolve(op.body)?.properties ?? {});
      for (const key of PROTOTYPE_KEYS) {
        const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: JSON.stringify(own(key, 'x')) });
        expect400(res, `${op.method} ${op.path} body.${key}`, key);
        checked++;
      }
      for (const [i, prop] of props.entries()) {
        const key = PROTOTYPE_KEYS[i % PROTOTYPE_KEYS.length];
        const shapes: [unknown, string][] = [
          [own(key, 'x'), `${prop}.${key}`],
          [[own(key, {})], `${prop}[0].${key}`],
          [{ a: [{ b: own(key, 1) }] }, `${prop}.a[0].b.${key}`],
        ];
        for (const [value, field] of shapes) {
          const res = await http(api.origin, op.method, urlOf(op), { key: credential(op.path), rawBody: `{${JSON.stringify(prop)}:${JSON.stringify(value)}}` });
          expect400(res, `${op.method} ${op.path} ${field}`, field);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('refuses prototype-named keys where the issue found them: target, design, design.colors, GS1 attributes, batch items, query strings', async () => {
    const key = org.apiKey;
    const cases: [string, string, Record<string, unknown>, string][] = [];
    for (const name of PROTOTYPE_KEYS) {
      cases.push(
        ['POST', '/v1/qr-codes', { target: { type: 'url', destination: 'https://example.com', ...own(name, {}) } }, `target.${name}`],
        ['POST', '/v1/qr-codes', { target: { type: 'url', destination: 'https://example.com' }, design: own(name, { a: 1 }) }, `design.${name}`],
        ['POST', '/v1/qr-codes', { target: { type: 'url', destination: 'https://example.com' }, design: { colors: own(name, '#000000') } }, `design.colors.${name}`],
        ['POST', '/v1/qr-codes', { type: 'gs1', primary_key: { ai: '01', value: '09506000134352' }, destination: 'https://example.com', attributes: own(name, '271231') }, `attributes.${name}`],
        ['POST', '/v1/batches', { items: [{ target: { type: 'text', text: 'x', ...own(name, 'y') } }] }, `items[0].target.${name}`],
      );
    }
    for (const [method, path, body, field] of cases) {
      expect400(await http(api.origin, method, path, { key, rawBody: JSON.stringify(body) }), `${path} ${field}`, field);
    }
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      expect400(await http(api.origin, 'GET', `/v1/qr-codes?${name}=1`, { key }), `query ${name}`, name);
    }
    // Nothing was created by any of them.
    const list = await http(api.origin, 'GET', '/v1/qr-codes?limit=100', { key });
    expect(list.body.data.filter((c: { target: { destination?: string } }) => c.target.destination === 'https://example.com')).toEqual([]);
  });

  it('refuses prototype-named keys in MCP tool arguments (create_qr_code) with 400 naming them, never a 500', async () => {
    const client = await httpClient(api.origin, org.apiKey);
    try {
      for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
        for (const [args, field] of [
          [{ target: { type: 'url', destination: 'https://example.com/mcp', ...own(name, {}) } }, `params.arguments.target.${name}`],
          [{ target: { type: 'url', destination: 'https://example.com/mcp' }, design: { colors: own(name, '#000000') } }, `params.arguments.design.colors.${name}`],
        ] as const) {
          // The JSON body parser refuses the request before the MCP transport reads it: the SDK reports the 400.
          const err: Error = await callTool(client, 'create_qr_code', args).then(
            () => new Error('accepted'),
            (e: Error) => e,
          );
          expect(err.message).toContain('"code":"invalid_request"');
          expect(err.message).toContain(`"field":"${field}"`);
        }
      }
      const list = await callTool(client, 'list_qr_codes', { limit: 100 });
      expect(list.body.data.filter((c: { target: { destination?: string } }) => c.target.destination === 'https://example.com/mcp')).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('names nested fields: target text, tags[] and batch items', async () => {
    const key = org.apiKey;
    const nul = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'a\u0000' } } });
    expect400(nul, 'target.text', 'target.text');
    const tag = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'ok' }, tags: ['fine', 'x\u0000'] } });
    expect400(tag, 'tags[1]', 'tags[1]');
    for (const [tags, field] of [[['fine', 'x'.repeat(51)], 'tags[1]'], [['  '], 'tags[0]']] as const) {
      expect400(await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'ok' }, tags } }), `tags ${JSON.stringify(tags)}`, field);
    }
    // 50 characters, not 50 UTF-16 code units.
    expect((await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'ok' }, tags: ['🍣'.repeat(50)] } })).status).toBe(201);
    const wifi = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { type: 'static', target: { type: 'wifi', ssid: 'x', password: '\ud800', encryption: 'WPA' } } });
    expect400(wifi, 'target.password', 'target.password');
    const batch = await http(api.origin, 'POST', '/v1/batches', { key, body: { items: [{ target: { type: 'url', destination: 'https://example.com' } }, { name: '\ud800', target: { type: 'text', text: 'x' } }] } });
    expect400(batch, 'items[1].name', 'items[1].name');
    const search = await http(api.origin, 'GET', '/v1/qr-codes?search=%00', { key });
    expect400(search, 'search', 'search');
    const idem = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'a\u0000' }, headers: { 'idempotency-key': 'nul-folder' } });
    expect400(idem, 'folder name with Idempotency-Key', 'name');
    // Tab, line feed and carriage return stay allowed where multi-line text makes sense.
    const text = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'line 1\r\n\tline 2' } } });
    expect(text.status).toBe(201);
  });

  it('refuses tabs and line breaks in one-line fields (names, tags, titles), keeps them in multi-line ones', async () => {
    const key = org.apiKey;
    const name = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { name: 'a\nb', target: { type: 'text', text: 'ok' } } });
    expect400(name, 'code name with a line feed', 'name');
    const tag = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'ok' }, tags: ['fine', 'a\tb'] } });
    expect400(tag, 'tag with a tab', 'tags[1]');
    const folder = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'a\r\nb' } });
    expect400(folder, 'folder name with CR LF', 'name');
    const title = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'linkpage', title: 'T\nU', links: [{ title: 'a', url: 'https://example.com/' }] } } });
    expect400(title, 'page title with a line feed', 'target.title');
    const message = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { type: 'static', target: { type: 'sms', phone: '+15555550100', message: 'line 1\nline 2' } } });
    expect(message.status).toBe(201);
  });

  it('refuses line breaks and other controls in URL fields, so no payload or .vcf carries injected lines', async () => {
    const injected = 'https://example.com/\r\nTEL;TYPE=CELL:+19005550100';
    for (const type of ['static', 'dynamic']) {
      const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type, target: { type: 'vcard', vcard: { your_name: 'Ada', website: injected } } } });
      expect400(res, `${type} vcard website`, 'target.vcard.website');
    }
    const tab = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/\tx' } } });
    expect400(tab, 'url with a tab', 'target.destination');
    const page = await http(api.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { target: { type: 'linkpage', title: 'T', links: [{ title: 'a', url: 'https://example.com/\nx' }] } },
    });
    expect(page.status).toBe(400);
    expect(page.body.error.field).toMatch(/^target\.links\[0\]\.url$/);
  });

  it('refuses bad strings in a lead-form post on the scan host with 400 (the form page for a browser, the envelope for JSON), storing nothing', async () => {
    const scan = await startScan();
    try {
      const form = await http(api.origin, 'POST', '/v1/qr-codes', {
        key: org.apiKey,
        body: { target: { type: 'form', title: 'T', fields: [{ name: 'name', label: 'Name', type: 'text', required: true }], consent_text: 'OK' } },
      });
      expect(form.status).toBe(201);
      const path = `/${form.body.short_code}`;
      // A browser's post: the form again (HTML, 400), the message under the field.
      const encoded = await http(scan.origin, 'POST', path, {
        rawBody: 'name=a%00b&consent=on&constructor=x&toString=y',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect([encoded.status, encoded.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
      expect(encoded.text).toMatch(/aria-invalid="true"[^>]*name="name"|name="name"[^>]*aria-invalid="true"/);
      expect(encoded.text).toContain('Remove the invisible control characters from this field.');
      // Prototype-named keys are ignored like any unknown key: the same post without the NUL is a lead.
      const stored = await http(scan.origin, 'POST', path, { rawBody: 'name=ab&consent=on&constructor=x&toString=y', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(stored.status).toBe(200);
      // A scripted JSON post: the API's envelope, naming the field.
      const json = await http(scan.origin, 'POST', path, { body: { name: '\ud800', consent: 'on' } });
      expect400(json, 'JSON lone surrogate', 'name');
      const code = await http(api.origin, 'GET', `/v1/qr-codes/${form.body.id}`, { key: org.apiKey });
      expect(code.body.target.summary.lead_count).toBe(1);
      // A form field cannot be named like an Object.prototype member: no post could carry it.
      const reserved = await http(api.origin, 'POST', '/v1/qr-codes', {
        key: org.apiKey,
        body: { target: { type: 'form', title: 'T', fields: [{ name: 'constructor', label: 'C', type: 'text' }], consent_text: 'OK' } },
      });
      expect400(reserved, 'field named constructor', 'target.fields[0].name');
      // A JSON post with an invalid or missing field: the envelope naming it, not the page, and no lead.
      const typed = await http(api.origin, 'POST', '/v1/qr-codes', {
        key: org.apiKey,
        body: { target: { type: 'form', title: 'T', fields: [{ name: 'name', label: 'Name', type: 'text', required: true }, { name: 'email', label: 'E-mail', type: 'email' }], consent_text: 'OK' } },
      });
      expect(typed.status).toBe(201);
      const badEmail = await http(scan.origin, 'POST', `/${typed.body.short_code}`, { body: { name: 'Ada', email: 'bad', consent: 'yes' } });
      expect400(badEmail, 'JSON lead with a bad e-mail', 'email');
      const missing = await http(scan.origin, 'POST', `/${typed.body.short_code}`, { body: { email: 'bad' } });
      expect400(missing, 'JSON lead missing its required fields', 'name');
      expect(missing.body.error.fields).toEqual(['name', 'email', 'consent']);
      const typedCode = await http(api.origin, 'GET', `/v1/qr-codes/${typed.body.id}`, { key: org.apiKey });
      expect(typedCode.body.target.summary.lead_count).toBe(0);
    } finally {
      await scan.close();
    }
  });
});
