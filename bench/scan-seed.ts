/** What bench:scan and bench:scan-cpu share: the redirect code they load, and the processes compiled as production
 * runs them (tsc, no ts-node), from the working tree or from a git revision. */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../src/common/config/config';
import { newId, newShortCode } from '../src/common/ids';
import { ormConfig } from '../src/mikro-orm.config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import type { CreateGs1QrCodeDto } from '../src/modules/gs1/gs1.dto';
import { prepareGs1 } from '../src/modules/gs1/gs1-kind';
import { ROOT } from './scan-load';
import { FieldReader } from '../src/modules/targets/fields';
import { parseSmartTarget } from '../src/modules/targets/smart-rules';

export const DESTINATION = 'https://example.com/spring?ref=poster';
/** A bare Node `http` server answering the scan host's 302 for DESTINATION (node -e, PORT from the environment). */
export const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.writeHead(302, { Location: ${JSON.stringify(`${DESTINATION}&utm_source=qr`)}, 'Cache-Control': 'no-store', 'Content-Length': '0' });
  res.end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));`;

/** One live url code (DESTINATION with utm_source=qr) in a new organization. */
export async function seedRedirect(config: AppConfig): Promise<{ orm: MikroORM; em: EntityManager; codeId: string; shortCode: string }> {
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const em = orm.em.fork() as unknown as EntityManager;
  const org = await new AccountsService(em, loadPlans(config.plansFile)).createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' });
  const codeId = newId('qr');
  const shortCode = newShortCode();
  await em.execute(
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment)
     values (?, ?, 'dynamic', 'Bench redirect', 'url', ?, ?::jsonb, '{}'::jsonb, 'live')`,
    [codeId, org.id, shortCode, JSON.stringify({ destination: DESTINATION, utm: { source: 'qr' } })],
  );
  return { orm, em, codeId, shortCode };
}

/** The GS1 resolver path bench:scan requests: a lot below a GTIN, answered by the code of that level. */
export const GS1_PATH = '/01/09506000134352/10/LOT42';

/** One live dynamic GS1 code for GS1_PATH (default link DESTINATION, a pip link) in the workspace of `codeId`. */
export async function seedGs1Resolver(em: EntityManager, codeId: string): Promise<string> {
  const draft = prepareGs1({
    type: 'gs1',
    primary_key: { ai: '01', value: '09506000134352' },
    qualifiers: [{ ai: '10', value: 'LOT42' }],
    destination: DESTINATION,
    links: [{ linkType: 'gs1:pip', href: 'https://example.com/pip', hreflang: ['en'] }],
  } as CreateGs1QrCodeDto);
  const id = newId('qr');
  await em.execute(
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment, gs1_key)
     select ?, organization_id, 'dynamic', 'Bench GS1', 'gs1', ?, ?::jsonb, '{}'::jsonb, 'live', ? from qr_codes where id = ?`,
    [id, newShortCode(), JSON.stringify(draft.target), draft.gs1Key, codeId],
  );
  return id;
}

/** Two smart-URL codes in the workspace of `codeId` (docs/smart-urls.md): 20 rules of which only the last matches an
 * iPhone (the others test country, region, language, OS, device, dates, scans and time windows that the bench's
 * requests fail), and a 50/50 split. Returns their ids and short codes. */
export async function seedSmartUrls(em: EntityManager, codeId: string): Promise<{ rules: { id: string; shortCode: string }; split: { id: string; shortCode: string } }> {
  const never: Record<string, unknown>[] = [
    { country: ['FR'] }, { region: ['US-CA'] }, { language: ['ja'] }, { os: ['android'] }, { device: ['desktop'] }, { device: ['tablet'] },
    { date: { to: '2001-01-01T00:00:00Z' } }, { scans: { from: 1_000_000_000 } }, { country: ['DE', 'AT', 'CH'], device: ['mobile'] },
    { language: ['fr', 'es', 'it'] }, { os: ['windows', 'macos', 'linux'] }, { date: { from: '2999-01-01T00:00:00Z' } },
    { region: ['GB-ENG', 'FR-IDF'] }, { country: ['US'], os: ['ios'] }, { language: ['de-AT'] }, { device: ['desktop'], os: ['ios'] },
    { scans: { from: 1, to: 1 }, country: ['JP'] }, { time: { days: ['mon'], from: '00:00', to: '00:01', timezone: 'Pacific/Kiritimati' }, os: ['other'] },
    { os: ['other'] },
  ];
  const rules = [...never.map((cond, i) => ({ name: `never ${i}`, if: cond, then: { destination: `https://example.com/never-${i}` } })), { name: 'iPhone', if: { device: ['mobile'], os: ['ios'] }, then: { destination: DESTINATION } }];
  const ruled = parseSmartTarget(new FieldReader({ default_url: 'https://example.com/default', rules }));
  const split = parseSmartTarget(new FieldReader({ default_url: 'https://example.com/default', rules: [{ then: { split: [{ destination: DESTINATION, weight: 50 }, { destination: `${DESTINATION}&arm=b`, weight: 50 }] } }] }));
  const insert = async (name: string, target: unknown) => {
    const id = newId('qr');
    const shortCode = newShortCode();
    await em.execute(
      `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment)
       select ?, organization_id, 'dynamic', ?, 'smarturl', ?, ?::jsonb, '{}'::jsonb, 'live' from qr_codes where id = ?`,
      [id, name, shortCode, JSON.stringify(target), codeId],
    );
    return { id, shortCode };
  };
  return { rules: await insert('Bench smart URL, 20 rules', ruled), split: await insert('Bench smart URL, 50/50 split', split) };
}

/**
 * Compiles the processes into `outDir` with tsc: `worktree` compiles this checkout as it is; any other value is a git
 * revision, exported with `git archive` next to `outDir` and compiled against this checkout's node_modules.
 */
export function compileProcesses(revision: string, outDir: string): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  let project = join(ROOT, 'tsconfig.build.json');
  if (revision !== 'worktree') {
    const tree = `${outDir}-tree`;
    mkdirSync(tree, { recursive: true });
    const tar = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', revision], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', tree], { input: tar });
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    project = join(tree, 'tsconfig.build.json');
  }
  execFileSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], { cwd: ROOT, stdio: 'inherit' });
  // What `nest build` copies beside the compiled files (nest-cli.json assets): the GS1 Syntax Dictionary.
  const data = join(dirname(project), 'src', 'modules', 'gs1', 'data');
  if (existsSync(data)) cpSync(data, join(outDir, 'src', 'modules', 'gs1', 'data'), { recursive: true, filter: (f) => !f.endsWith('.md') });
}

/** The compiled processes of a revision: `worktree` into the run's directory, a commit into a build kept per commit id. */
export function buildRevision(revision: string, data: string, i: number): string {
  if (revision === 'worktree') {
    const dir = join(data, `build-${i}`);
    compileProcesses(revision, dir);
    return dir;
  }
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${revision}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = join(ROOT, '.local', 'bench-builds', commit);
  if (!existsSync(dir)) {
    const partial = `${dir}.${process.pid}`;
    try {
      compileProcesses(commit, partial);
      renameSync(partial, dir);
    } finally {
      rmSync(`${partial}-tree`, { recursive: true, force: true });
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return dir;
}
