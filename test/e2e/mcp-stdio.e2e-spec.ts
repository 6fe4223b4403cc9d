import { spawnSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { createCode, createOrg, http, startApi, TestApp, TestOrg, writePlans } from '../setup/app';
import { awayFromMinuteEnd, callTool, lifecycleThroughTools, STDIO_COMMAND, stdioClient, TOOL_NAMES, toolError } from '../setup/mcp';

/** Runs the stdio server to its exit (for start-up failures). */
function runStdio(env: Record<string, string | undefined>): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, STDIO_COMMAND, { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, encoding: 'utf8', timeout: 240_000, input: '' });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('MCP server over stdio (npm run -s mcp)', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let org: TestOrg;
  let client: Client;
  const plansFile = writePlans({ plus: { requests_per_minute: 4 } });

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', PLANS_FILE: plansFile });
    org = await createOrg(t, { plan: 'pro' });
    expect((await http(t.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/mcp-stdio'), events: ['*'] } })).status).toBe(201);
    client = await stdioClient(org.apiKey, { PLANS_FILE: plansFile });
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await t.close();
    await rx.stop();
  });

  it('lists the tools and runs the code lifecycle as the key in SCANLINK_API_KEY, with the API events', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    await lifecycleThroughTools(client, t, org);
  });

  it('keeps workspaces apart: a foreign id is not_found', async () => {
    const other = await createOrg(t, { plan: 'pro' });
    const theirs = await createCode(t, other, { target: { type: 'url', destination: 'https://example.com/theirs' } });
    expect(await toolError(client, 'get_qr_code', { id: theirs.id })).toMatchObject({ code: 'not_found' });
    expect(await toolError(client, 'delete_qr_code', { id: theirs.id })).toMatchObject({ code: 'not_found' });
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${theirs.id}`, { key: other.apiKey })).status).toBe(200);
  });

  it('refuses writes to a read-only key and shares the rate limit with REST calls', async () => {
    const reader = await createOrg(t, { plan: 'plus', scopes: ['qr:read'] });
    const readOnly = await stdioClient(reader.apiKey, { PLANS_FILE: plansFile });
    await awayFromMinuteEnd(30_000);
    try {
      // Plan limit 4 a minute. Authentication at start-up is not counted; the refused call is, as on REST.
      expect(await toolError(readOnly, 'create_qr_code', { target: { type: 'url', destination: 'https://example.com' } })).toMatchObject({
        code: 'insufficient_scope',
      });
      expect((await http(t.origin, 'GET', '/v1/qr-codes', { key: reader.apiKey })).status).toBe(200);
      expect((await callTool(readOnly, 'list_qr_codes')).isError).toBe(false);
      expect((await callTool(readOnly, 'list_folders')).isError).toBe(false);
      expect((await http(t.origin, 'GET', '/v1/qr-codes', { key: reader.apiKey })).status).toBe(429);
      expect(await toolError(readOnly, 'list_folders')).toMatchObject({ code: 'rate_limited', retry_after: expect.any(Number) });
    } finally {
      await readOnly.close();
    }
  }, 360_000);

  it('exits with a clear message when the key is missing or refused', () => {
    const missing = runStdio({ SCANLINK_API_KEY: '' });
    expect(missing.status).toBe(78);
    expect(missing.stderr).toMatch(/SCANLINK_API_KEY is not set/);
    expect(missing.stdout).toBe('');
    const malformed = runStdio({ SCANLINK_API_KEY: 'not-a-key' });
    expect(malformed.status).toBe(77);
    expect(malformed.stderr).toMatch(/Malformed API key/);
    const unknown = runStdio({ SCANLINK_API_KEY: `qr_live_${'z'.repeat(32)}` });
    expect(unknown.status).toBe(77);
    expect(unknown.stderr).toMatch(/SCANLINK_API_KEY was refused: Unknown API key/);
    expect(unknown.stdout).toBe('');
  }, 360_000);
});
