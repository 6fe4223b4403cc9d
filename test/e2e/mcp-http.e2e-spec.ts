import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { addKey, createCode, createOrg, http, startApi, TestApp, TestOrg, writePlans } from '../setup/app';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { awayFromMinuteEnd, callTool, httpClient, lifecycleThroughTools, TOOL_NAMES, toolError } from '../setup/mcp';

describe('MCP server over Streamable HTTP (POST /mcp)', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let org: TestOrg;
  let client: Client;
  const clients: Client[] = [];
  const connect = async (key: string) => {
    const c = await httpClient(t.origin, key);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    org = await createOrg(t, { plan: 'pro' });
    expect((await http(t.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/mcp'), events: ['*'] } })).status).toBe(201);
    client = await connect(org.apiKey);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
    await rx.stop();
  });

  it('lists the tools with input schemas taken from the API document', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    const create = tools.find((tool) => tool.name === 'create_qr_code')!;
    // POST /v1/qr-codes takes a standard or a GS1 body: the tool takes the fields of both, requiring what both require.
    const shapes = [doc.components.schemas.CreateQrCodeDto, doc.components.schemas.CreateGs1QrCodeDto];
    const fields = [...new Set(shapes.flatMap((shape) => Object.keys(shape.properties)))].sort();
    expect(Object.keys(create.inputSchema.properties!).sort()).toEqual(fields);
    expect(fields).toEqual(expect.arrayContaining(['target', 'template_id', 'domain_id', 'primary_key']));
    const requiredByBoth = (shapes[0].required as string[]).filter((name) => ((shapes[1].required ?? []) as string[]).includes(name));
    expect(create.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(create.inputSchema.required ?? []).toEqual(requiredByBoth);
    expect(tools.find((tool) => tool.name === 'get_qr_code')!.inputSchema).toMatchObject({ required: ['id'], properties: { id: { type: 'string' } } });
    expect(tools.find((tool) => tool.name === 'list_qr_codes')!.inputSchema.properties).toMatchObject({ limit: { type: 'integer', maximum: 100 } });
    expect(JSON.stringify(tools)).not.toContain('#/components/');
  });

  it('creates, reads, updates, trashes and restores a code, emitting the API events', async () => {
    await lifecycleThroughTools(client, t, org);
  });

  it('answers 401 in the API envelope without a valid key, 405 to GET', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${t.origin}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('request-id')).toMatch(/^req_/);
    expect(await missing.json()).toEqual({ error: expect.objectContaining({ code: 'unauthorized', message: expect.stringMatching(/Missing API key/) }) });
    const unknown = await fetch(`${t.origin}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer qr_live_${'x'.repeat(32)}` }, body: JSON.stringify(init) });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: object }).error).toMatchObject({ code: 'unauthorized', message: 'Unknown API key' });
    await expect(httpClient(t.origin, `qr_live_${'y'.repeat(32)}`)).rejects.toThrow(/Unknown API key/);
    // Idempotency-Key means nothing to JSON-RPC: ignored, the same message twice is answered twice.
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${t.origin}/mcp`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${org.apiKey}`, 'idempotency-key': 'mcp-ping' }, body: JSON.stringify(ping) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    }
    const get = await fetch(`${t.origin}/mcp`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${org.apiKey}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('applies scopes, plan rules, environments and workspace isolation', async () => {
    const reader = await connect((await createOrg(t, { plan: 'pro', scopes: ['qr:read'] })).apiKey);
    const refused = await toolError(reader, 'create_qr_code', { target: { type: 'url', destination: 'https://example.com' } });
    expect(refused).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining("'qr:write'"), request_id: expect.stringMatching(/^req_/) });
    expect((await callTool(reader, 'list_qr_codes')).isError).toBe(false);

    const mine = await createCode(t, org, { target: { type: 'url', destination: 'https://example.com/mine' } });
    const stranger = await connect((await createOrg(t, { plan: 'pro' })).apiKey);
    expect(await toolError(stranger, 'get_qr_code', { id: mine.id })).toMatchObject({ code: 'not_found', message: `No such QR code: '${mine.id}'` });
    expect((await toolError(stranger, 'restore_qr_code', { id: mine.id })).code).toBe('not_found');
    const testKey = await connect((await addKey(t, org.organizationId, { environment: 'test' })).apiKey);
    expect((await toolError(testKey, 'get_qr_code', { id: mine.id })).code).toBe('not_found');
    const testCode = await callTool(testKey, 'create_qr_code', { target: { type: 'url', destination: 'https://example.com/t' } });
    expect(testCode.body.environment).toBe('test');
    expect((await toolError(client, 'get_qr_code', { id: testCode.body.id })).code).toBe('not_found');

    const free = await connect((await createOrg(t, { plan: 'free' })).apiKey);
    expect((await toolError(free, 'create_qr_code', { target: { type: 'url', destination: 'https://example.com' } })).code).toBe('plan_restricted');
    expect((await toolError(free, 'create_batch', { items: [] })).code).toBe('plan_restricted');
    expect((await toolError(free, 'get_qr_code_analytics', { id: mine.id })).code).toBe('plan_restricted');
  });

  it('refuses bad input with invalid_request naming the field, never a crash', async () => {
    expect(await toolError(client, 'create_qr_code', { target: 'nope' })).toMatchObject({ code: 'invalid_request', field: 'target' });
    expect(await toolError(client, 'create_qr_code', { target: { type: 'url', destination: 'https://example.com' }, colour: 'red' })).toMatchObject({
      code: 'invalid_request',
      message: "Unknown field 'colour'",
    });
    expect(await toolError(client, 'create_qr_code', { target: { type: 'url', destination: 'ftp://x' } })).toMatchObject({ code: 'invalid_request' });
    expect(await toolError(client, 'update_qr_code', { id: 'qr_x', name: 'a\u0000b' })).toMatchObject({ code: 'invalid_request', field: 'name' });
    expect(await toolError(client, 'get_qr_code', {})).toMatchObject({ code: 'invalid_request', field: 'id' });
    expect(await toolError(client, 'get_qr_code', { id: 42 })).toMatchObject({ code: 'invalid_request', field: 'id' });
    expect(await toolError(client, 'get_qr_code', { id: 'qr_x', extra: 1 })).toMatchObject({ code: 'invalid_request', field: 'extra' });
    expect(await toolError(client, 'list_qr_codes', { limit: 1000 })).toMatchObject({ code: 'invalid_request', field: 'limit' });
    expect(await toolError(client, 'list_qr_codes', { sort: 'colour' })).toMatchObject({ code: 'invalid_request', field: 'sort' });
    expect(await toolError(client, 'get_qr_code_analytics', { id: 'qr_x', from: 'yesterday' })).toMatchObject({ code: 'invalid_request' });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    // arguments that are not an object: JSON-RPC invalid params (-32602), not an internal error.
    const call = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'update_qr_code_content', arguments: 'notanobject' } };
    const res = await fetch(`${t.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${org.apiKey}` },
      body: JSON.stringify(call),
    });
    const body = (await res.json()) as { error?: { code: number; message: string } };
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toMatch(/Invalid tools\/call request/);
  });

  it('creates GS1 codes through create_qr_code, checked like POST /v1/qr-codes', async () => {
    const gtin = randomGtin();
    const created = await callTool(client, 'create_qr_code', { type: 'gs1', mode: 'static', primary_key: { ai: '01', value: gtin }, domain: 'id.brand.example' });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({ type: 'gs1', target: { mode: 'static', destination: `https://id.brand.example/01/${gtin}` } });
    const wrong = `${gtin.slice(0, 13)}${(Number(gtin[13]) + 1) % 10}`;
    expect(await toolError(client, 'create_qr_code', { type: 'gs1', mode: 'static', primary_key: { ai: '01', value: wrong }, domain: 'id.brand.example' })).toMatchObject({
      code: 'gs1_invalid',
    });
  });

  it('creates smart URLs with link controls, edits their rules and tests them', async () => {
    const created = await callTool(client, 'create_qr_code', {
      target: { type: 'smarturl', default_url: 'https://example.com/', rules: [{ if: { country: ['FR'] }, then: { destination: 'https://example.com/fr' } }] },
      max_scans: 100,
      password: 'mcp secret',
    });
    expect(created.isError).toBe(false);
    expect(created.body).toMatchObject({ type: 'smarturl', max_scans: 100, has_password: true, target: { summary: { rules: 1, splits: 0 } } });
    const ruleId = created.body.target.rules[0].id;
    expect((await callTool(client, 'test_qr_code_rules', { id: created.body.id, country: 'FR' })).body).toEqual({ rule_id: ruleId, destination: 'https://example.com/fr' });
    const edited = await callTool(client, 'update_qr_code_content', {
      id: created.body.id,
      default_url: 'https://example.com/',
      rules: [{ id: ruleId, if: { country: ['FR', 'BE'] }, then: { destination: 'https://example.com/fr' } }],
    });
    expect(edited.isError).toBe(false);
    expect(edited.body.target.rules[0]).toMatchObject({ id: ruleId, if: { country: ['FR', 'BE'] } });
    expect((await callTool(client, 'test_qr_code_rules', { id: created.body.id, country: 'BE' })).body.rule_id).toBe(ruleId);
    expect(await toolError(client, 'test_qr_code_rules', { id: created.body.id, country: 'Belgium' })).toMatchObject({ code: 'invalid_request', field: 'country' });
    expect(await toolError(client, 'update_qr_code_content', { id: created.body.id, default_url: 'https://example.com/', rules: [{ then: { split: [{ destination: 'https://a.example', weight: 0 }] } }] })).toMatchObject({
      code: 'invalid_request',
      field: 'rules[0].then.split[0].weight',
    });
  });

  it('runs batches and lists folders', async () => {
    const folder = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'MCP folder' } });
    expect((await callTool(client, 'list_folders', { limit: 100 })).body.data).toContainEqual(expect.objectContaining({ id: folder.body.id }));
    const batch = await callTool(client, 'create_batch', { items: [{ name: 'B1', target: { type: 'url', destination: 'https://example.com/b1' } }] });
    expect(batch.isError).toBe(false);
    expect(batch.body).toMatchObject({ object: 'batch', id: expect.stringMatching(/^batch_/) });
    expect((await callTool(client, 'get_batch', { id: batch.body.id })).body).toMatchObject({ id: batch.body.id, object: 'batch' });
    expect((await toolError(client, 'get_batch', { id: 'batch_doesnotexist000000' })).code).toBe('not_found');
  });
});

describe('MCP tool calls share the REST rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi({ PLANS_FILE: writePlans({ plus: { requests_per_minute: 4 } }) });
  });
  afterAll(() => t.close());

  it('counts tool calls (not protocol messages) in the key window and answers rate_limited as a tool error', async () => {
    const org = await createOrg(t, { plan: 'plus' });
    await awayFromMinuteEnd();
    const client = await httpClient(t.origin, org.apiKey);
    await client.listTools();
    expect((await http(t.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).status).toBe(200);
    expect((await callTool(client, 'list_qr_codes')).isError).toBe(false);
    expect((await http(t.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).headers.get('ratelimit-remaining')).toBe('1');
    expect((await callTool(client, 'list_folders')).isError).toBe(false);
    const limited = await toolError(client, 'list_qr_codes');
    expect(limited).toMatchObject({ code: 'rate_limited', retry_after: expect.any(Number) });
    expect((await http(t.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).status).toBe(429);
    await client.close();
  });
});
