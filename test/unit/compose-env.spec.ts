import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/common/config/config';

const ROOT = join(__dirname, '..', '..');

/** What compose gives a variable when the operator sets only what docs/deploy.md asks for: `${X:-default}` is the
 * default, `${X:?message}` (required) is the operator's value. */
function resolve(value: unknown, operator: Record<string, string>): string {
  return String(value ?? '').replace(/\$\{([A-Z0-9_]+)(:-|:\?)([^}]*)\}/g, (_all, name: string, op: string, rest: string) =>
    operator[name] ?? (op === ':-' ? rest : `<${name} missing>`),
  );
}

/** docker/compose.yaml cannot start here (no Docker engine): its environment must at least pass the processes' own
 * configuration check, or every replica would exit at start with "Invalid configuration". */
describe('docker/compose.yaml environment', () => {
  const doc = YAML.parse(readFileSync(join(ROOT, 'docker', 'compose.yaml'), 'utf8'), { merge: true, maxAliasCount: -1 });
  const operator = { APP_SECRET: 'a'.repeat(32), DASHBOARD_JWT_SECRET: 'b'.repeat(32) };

  it.each(['api', 'scan', 'worker'])('%s: the configuration loads with only the required secrets set', (service) => {
    const env = Object.fromEntries(Object.entries(doc.services[service].environment as Record<string, unknown>).map(([k, v]) => [k, resolve(v, operator)]));
    expect(env.SMTP_URL).toBe(''); // what compose passes for an unset optional variable
    const config = loadConfig(env);
    expect(config).toMatchObject({ env: 'production', smtpUrl: undefined, storageDriver: 'fs', s3: undefined });
  });
});
