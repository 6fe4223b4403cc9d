import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const check = (file?: string) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-compose.js'), ...(file ? [file] : [])], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

/** docker/compose.yaml cannot run here: the checker (schema through dclint, then the deployment rules) must accept it
 * and refuse the mistakes it exists to catch. */
describe('compose check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'compose-check-'));
    // The Caddyfile and Prometheus config sit beside the compose file it mounts.
    for (const f of ['Caddyfile', 'prometheus.yml', 'metrics_token.example']) copyFileSync(join(ROOT, 'docker', f), join(dir, f));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const variant = (name: string, edit: (text: string) => string): string => {
    const file = join(dir, `${name}.yaml`);
    const original = readFileSync(join(ROOT, 'docker', 'compose.yaml'), 'utf8');
    const changed = edit(original);
    expect(changed).not.toBe(original);
    writeFileSync(file, changed);
    return file;
  };

  it('accepts docker/compose.yaml', () => {
    const r = check();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/docker\/compose\.yaml is valid/);
  });

  it.each([
    ['a fixed host port on a replicated service', (t: string) => t.replace('    expose:\n      - "3001"', '    ports:\n      - "3001:3001"'), /scan is replicated: it must not publish host ports/],
    ['TRUST_PROXY not naming the proxy', (t: string) => t.replace('${TRUST_PROXY:-172.28.0.2}', '${TRUST_PROXY:-}'), /api: TRUST_PROXY must name caddy/],
    ['a health check on /health', (t: string) => t.replace("127.0.0.1:3002/health/ready", '127.0.0.1:3002/health'), /worker: the health check must call \/health\/ready/],
    ['an unknown key (schema)', (t: string) => t.replace('    restart: "no"', '    restart: "no"\n    replicaz: 2'), /invalid-schema|schema or lint rule/],
  ])('refuses %s', (_name, edit, message) => {
    const r = check(variant(_name.replace(/\W+/g, '-'), edit));
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toMatch(message);
  });
});
