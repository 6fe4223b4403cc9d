#!/usr/bin/env node
'use strict';
/* `npm run check:architecture` (also in .ci/run): the import rules of docs/architecture.md, checked on src/.
 * 1. No import cycle between files, type-only imports included (madge).
 * 2. src/common/ imports nothing from src/modules/ or src/app/ (ESLint enforces it too).
 * 3. Between modules, imports follow MODULE_ORDER: a module may import only modules listed before it, so the module
 *    graph is one-way. Tests and test helpers (*.spec.ts, testing/) are left out of rule 3: a test may exercise two
 *    modules together.
 * 4. Each module offers an explicit public surface (SURFACES below): another module, src/app or a root entry may import
 *    only those files of it; src/app and root entries may also import any module's `*.module.ts` (process composition)
 *    and `*.entity.ts` (the ORM's entity list). A deep import into another module's other files fails.
 * 5. Type knowledge stays home: outside src/modules/targets/ and src/modules/gs1/, no code compares a type with a
 *    target type name (`type === 'form'`, SQL `type <> 'gs1'`), returns or switches on one; it asks the registry or the
 *    GS1 kind instead. The names come from the registry itself. */
const fs = require('node:fs');
const path = require('node:path');
const madge = require('madge');

const ROOT = path.resolve(__dirname, '..');

/** The dependency direction, lowest first (docs/architecture.md "Module map"). */
const MODULE_ORDER = [
  'health',
  'mail',
  'audit',
  'accounts',
  'tokens',
  'members',
  'folders',
  'events',
  'webhooks',
  'rendering',
  'templates',
  'images',
  'files',
  'hosted-pages',
  'targets',
  'gs1',
  'domains',
  'qr-codes',
  'scan',
  'leads',
  'analytics',
  'batches',
  'metrics',
  'mcp',
];

/**
 * Each module's public surface: the files (relative to src/modules/<name>/) other modules may import, and what each
 * offers (docs/architecture.md "Module map" shows the same lists). Everything else in a module is its own business.
 */
const SURFACES = {
  health: ['health.module.ts'],
  mail: ['mail.module.ts', 'mail.service.ts'],
  audit: ['audit.repository.ts', 'audit-subscriber.ts'],
  accounts: ['accounts.module.ts', 'accounts.service.ts', 'api-keys.service.ts', 'organizations.repository.ts', 'plans.ts', 'api-key.entity.ts', 'organization.entity.ts', 'workspace-usage.ts'],
  tokens: ['dashboard-auth.service.ts', 'tokens-api.module.ts'],
  members: ['members.repository.ts'],
  folders: ['folders-api.module.ts', 'folders.repository.ts', 'folders.service.ts', 'folders.dto.ts', 'folders.controller.ts'],
  events: ['events.module.ts', 'events.service.ts', 'event-subscriber.ts', 'event-types.ts'],
  webhooks: ['webhook-outbox.ts'],
  rendering: ['rendering.module.ts', 'rendering.service.ts', 'design.ts', 'design.dto.ts', 'image-request.ts', 'scannability.ts', 'download-formats.ts'],
  templates: ['templates.repository.ts'],
  images: ['images.module.ts', 'images.service.ts', 'storage/image-storage.ts', 'storage/storage.factory.ts'],
  files: ['files.module.ts', 'files.repository.ts', 'file-delivery.service.ts', 'file-types.ts', 'multipart-upload.ts', 'files.service.ts'],
  'hosted-pages': ['hosted-response.ts', 'layout.ts', 'mailto.ts', 'content-pages.ts', 'link-pages.ts', 'file-pages.ts', 'form-page.ts', 'status-pages.ts', 'link-control-pages.ts'],
  targets: ['registry.ts', 'target-handler.ts', 'fields.ts', 'smart-rules.ts', 'link-controls.ts'],
  gs1: ['gs1-kind.ts', 'gs1-codes.ts', 'gs1.dto.ts', 'syntax-dictionary.ts'],
  domains: ['domains-scan.module.ts', 'code-domain.ts', 'scan-site.ts', 'domain-host-cache.ts'],
  'qr-codes': [
    'qr-codes.module.ts',
    'qr-codes.service.ts',
    'qr-codes.controller.ts',
    'qr-code-creation.service.ts',
    'qr-code.entity.ts',
    'qr-codes.repository.ts',
    'capacity.repository.ts',
    'qr-code-limits.ts',
    'qr-lifecycle.ts',
    'gs1-ownership.repository.ts',
    'image-references.repository.ts',
    'code-kinds.ts',
    'dto/create-body.ts',
    'dto/qr-code.dto.ts',
    'dto/qr-code-response.dto.ts',
    'dto/target-schemas.ts',
  ],
  scan: ['scan-host.module.ts', 'scan-hot-path.ts', 'scan-access-log.ts', 'scan-contract.ts', 'scan-buffer.ts', 'enrich.ts', 'unlock-cookie.ts'],
  leads: [],
  analytics: ['analytics-api.module.ts', 'analytics.service.ts', 'analytics.controller.ts', 'analytics.dto.ts'],
  batches: ['batches.module.ts', 'batches.service.ts', 'batches.controller.ts', 'batches.dto.ts'],
  metrics: [],
  mcp: ['mcp.service.ts'],
};

/** `common`, `app`, `modules/<name>` or `root` for a path relative to src/. */
function areaOf(file) {
  const parts = file.split('/');
  if (parts[0] === 'modules') return parts[1];
  if (parts[0] === 'common' || parts[0] === 'app') return parts[0];
  return 'root';
}

/** Whether `dep` (modules/<name>/…) is on its module's surface for an importer in area `from`. */
function onSurface(from, dep) {
  const [, mod, ...rest] = dep.split('/');
  const inner = rest.join('/');
  if ((SURFACES[mod] ?? []).includes(inner)) return true;
  return (from === 'app' || from === 'root') && /\.(module|entity)\.ts$/.test(inner);
}

const isTestCode = (file) => /\.spec\.ts$/.test(file) || /(^|\/)testing\//.test(file);

/** Every stored type name: the target types of the registry and the GS1 kind's (loaded through ts-node). */
function typeNames() {
  require('ts-node').register({ transpileOnly: true, project: path.join(ROOT, 'tsconfig.json') });
  const { TARGET_TYPES } = require(path.join(ROOT, 'src/modules/targets/registry'));
  const { gs1Kind } = require(path.join(ROOT, 'src/modules/gs1/gs1-kind'));
  return [...TARGET_TYPES, gs1Kind.type];
}

const TYPE_HOMES = /^modules\/(targets|gs1)\//;

/** `x.type` values that are not a code's type although they share names with target types (a multipart part's
 * `file`, a form field's `text`/`email`). */
const HOMONYM_SUBJECTS = new Set(['part.type', 'f.type', 'field.type']);

/** Places outside targets/ and gs1/ that name a target type in code: a `type` compared with one (JS or SQL), a
 * switch on a `type` with a case for one, or a function returning one. */
function typeNamePlaces(files, names) {
  const alt = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const q = `['"](?:${alt})['"]`;
  const subject = '([\\w.?]*[tT]ype)';
  const patterns = [
    new RegExp(`\\b${subject}\\s*(?:===|!==|==|!=)\\s*${q}`),
    new RegExp(`${q}\\s*(?:===|!==|==|!=)\\s*${subject}\\b`),
    new RegExp(`\\b${subject}\\s*(?:=|<>|!=)\\s*'(?:${alt})'`), // SQL
    new RegExp(`\\breturn\\s+${q}`),
  ];
  const caseOf = new RegExp(`\\bcase\\s+${q}\\s*:`);
  const places = [];
  for (const file of files) {
    if (TYPE_HOMES.test(file) || isTestCode(file)) continue;
    const lines = fs.readFileSync(path.join(ROOT, 'src', file), 'utf8').split('\n');
    let switchSubject = '';
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may name a type
      const sw = /\bswitch\s*\((.*)\)\s*\{/.exec(line);
      if (sw) switchSubject = sw[1].trim();
      for (const re of patterns) {
        const m = re.exec(line);
        const subj = m && m[1];
        if (m && !HOMONYM_SUBJECTS.has(subj)) places.push(`src/${file}:${i + 1}: ${m[0]}`);
      }
      const c = caseOf.exec(line);
      if (c && /type$/i.test(switchSubject) && !HOMONYM_SUBJECTS.has(switchSubject)) places.push(`src/${file}:${i + 1}: switch (${switchSubject}) ${c[0]}`);
    });
  }
  return places;
}

async function main() {
  const res = await madge(path.join(ROOT, 'src'), {
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false, mixedImports: true }, tsx: { skipTypeImports: false } },
  });
  const problems = [];
  for (const cycle of res.circular()) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
  const rank = new Map(MODULE_ORDER.map((m, i) => [m, i]));
  const graph = res.obj();
  for (const [file, deps] of Object.entries(graph)) {
    const from = areaOf(file);
    for (const dep of deps) {
      const to = areaOf(dep);
      if (from === to) continue;
      if (from === 'common' && to !== 'common') problems.push(`common imports ${to}: ${file} → ${dep}`);
      if (dep.startsWith('modules/') && !isTestCode(file) && !onSurface(from, dep)) {
        problems.push(`deep import into ${to} (not on its surface, SURFACES in scripts/check-architecture.js): ${file} → ${dep}`);
      }
      if (to === 'app' && from !== 'root') problems.push(`${from} imports the process composition (src/app): ${file} → ${dep}`);
      if (isTestCode(file) || from === 'common' || from === 'app' || from === 'root' || to === 'common') continue;
      if (!rank.has(from) || !rank.has(to)) {
        problems.push(`module ${!rank.has(from) ? from : to} is missing from MODULE_ORDER (scripts/check-architecture.js)`);
      } else if (rank.get(to) > rank.get(from)) {
        problems.push(`${from} imports ${to}, against the module order: ${file} → ${dep}`);
      }
    }
  }
  for (const dir of fs.readdirSync(path.join(ROOT, 'src', 'modules'))) {
    if (!rank.has(dir)) problems.push(`module ${dir} is missing from MODULE_ORDER (scripts/check-architecture.js)`);
    if (!SURFACES[dir]) problems.push(`module ${dir} has no SURFACES entry (scripts/check-architecture.js)`);
    for (const f of SURFACES[dir] ?? []) {
      if (!fs.existsSync(path.join(ROOT, 'src', 'modules', dir, f))) problems.push(`SURFACES lists a missing file: src/modules/${dir}/${f}`);
    }
  }
  const named = typeNamePlaces(Object.keys(graph), typeNames());
  for (const place of named) problems.push(`a target type named outside targets/ and gs1/ (ask the registry or the GS1 kind): ${place}`);
  const unique = [...new Set(problems)];
  if (unique.length) {
    process.stderr.write(`architecture check failed:\n${unique.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`architecture check: ${Object.keys(graph).length} files, no import cycle, modules one-way (${MODULE_ORDER.join(' ← ')}), imports only through module surfaces, target type names outside targets/ and gs1/: ${named.length}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
