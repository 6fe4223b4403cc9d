import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { http, type TestApp, type TestOrg } from './app';

export const ROOT = join(__dirname, '..', '..');

/** The MCP stdio server from source, as `npm run -s mcp` runs it compiled (dist/src/mcp.js). */
export const STDIO_COMMAND = [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'mcp.ts')];

export const TOOL_NAMES = [
  'create_qr_code',
  'list_qr_codes',
  'get_qr_code',
  'update_qr_code',
  'delete_qr_code',
  'restore_qr_code',
  'get_qr_code_analytics',
  'list_folders',
  'create_batch',
  'get_batch',
  'update_qr_code_content',
  'test_qr_code_rules',
];

/** The SDK's own client over Streamable HTTP, authenticated with the API key. */
export async function httpClient(origin: string, key: string): Promise<Client> {
  const client = new Client({ name: 'scanlink-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return client;
}

/** The SDK's own client over stdio, spawning the server with the key in SCANLINK_API_KEY. */
export async function stdioClient(key: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'scanlink-e2e', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: STDIO_COMMAND,
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: 'warn', ...env, SCANLINK_API_KEY: key },
    stderr: 'pipe',
  });
  // The server's stderr (its start-up line and logs) is kept quiet unless the connection fails.
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // The server answers `initialize` once the app has booted: slow on a loaded machine, so more than the default 60 s.
  await client.connect(transport, { timeout: 240_000 }).catch((err: Error) => {
    throw new Error(`MCP stdio server did not start: ${err.message}\n${stderr}`);
  });
  return client;
}

export interface ToolAnswer<T = any> {
  isError: boolean;
  body: T;
}

/** Calls a tool; the JSON in its text content must equal its structured content. */
export async function callTool<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer<T>> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content.find((c) => c.type === 'text');
  const body = JSON.parse(text && text.type === 'text' ? text.text : 'null');
  expect(res.structuredContent).toEqual(body);
  return { isError: res.isError === true, body };
}

/** A tool error's `error` object, failing the test when the call succeeded. */
export async function toolError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ code: string; message: string; [k: string]: unknown }> {
  const res = await callTool(client, name, args);
  if (!res.isError) throw new Error(`${name} succeeded: ${JSON.stringify(res.body)}`);
  return res.body.error;
}

/** Waits until at least `margin` ms are left in the current minute (rate-limit windows are fixed minutes). */
export async function awayFromMinuteEnd(margin = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await new Promise((r) => setTimeout(r, left + 200));
}

/** Create, get, update, delete and restore through the tools; each step is checked through the REST API and in the
 * event archive (the workspace must have a webhook endpoint listening to every event). */
export async function lifecycleThroughTools(client: Client, api: TestApp, org: TestOrg): Promise<void> {
  const created = await callTool(client, 'create_qr_code', { name: 'MCP menu', target: { type: 'url', destination: 'https://example.com/menu' }, tags: ['mcp'] });
  expect(created.isError).toBe(false);
  const id = created.body.id as string;
  expect(created.body).toMatchObject({ object: 'qr_code', name: 'MCP menu', type: 'url', tags: ['mcp'], is_active: true });
  const rest = await http(api.origin, 'GET', `/v1/qr-codes/${id}`, { key: org.apiKey });
  expect(rest.status).toBe(200);
  expect((await callTool(client, 'get_qr_code', { id })).body).toEqual(rest.body);

  const updated = await callTool(client, 'update_qr_code', { id, name: 'Summer menu', target: { destination: 'https://example.com/summer' } });
  expect(updated.body).toMatchObject({ id, name: 'Summer menu', target: { destination: 'https://example.com/summer' } });
  expect((await http(api.origin, 'GET', `/v1/qr-codes/${id}`, { key: org.apiKey })).body.name).toBe('Summer menu');

  const listed = await callTool(client, 'list_qr_codes', { limit: 5, search: 'Summer' });
  expect(listed.body).toMatchObject({ object: 'list', data: [expect.objectContaining({ id })] });

  expect((await callTool(client, 'delete_qr_code', { id })).body).toEqual({ id, object: 'qr_code', deleted: true });
  expect((await http(api.origin, 'GET', `/v1/qr-codes/${id}`, { key: org.apiKey })).status).toBe(404);
  expect((await toolError(client, 'get_qr_code', { id })).code).toBe('not_found');

  const restored = await callTool(client, 'restore_qr_code', { id });
  expect(restored.body).toMatchObject({ id, is_active: true, name: 'Summer menu' });
  expect((await http(api.origin, 'GET', `/v1/qr-codes/${id}`, { key: org.apiKey })).status).toBe(200);

  for (const type of ['qr.created', 'qr.updated', 'qr.deleted', 'qr.restored']) {
    const events = await http(api.origin, 'GET', `/v1/events?type=${type}&limit=100`, { key: org.apiKey });
    expect(events.body.data.filter((e: { data: { id: string } }) => e.data.id === id)).toHaveLength(1);
  }
  const restoredEvent = (await http(api.origin, 'GET', '/v1/events?type=qr.restored&limit=100', { key: org.apiKey })).body.data.find((e: { data: { id: string } }) => e.data.id === id);
  expect(restoredEvent.data).toMatchObject({ id, is_active: true });
}
