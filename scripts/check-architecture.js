#!/usr/bin/env node
'use strict';
/* `npm run check:architecture` (also in .ci/run): the import rules of docs/architecture.md, checked on src/.
 * 1. No import cycle between files, type-only imports included (madge).
 * 2. src/common/ imports nothing from src/modules/ or src/app/ (ESLint enforces it too).
 * 3. Between modules, imports follow MODULE_ORDER: a module may import only modules listed before it, so the module
 *    graph is one-way. Tests and test helpers (*.spec.ts, testing/) are left out of rule 3: a test may exercise two
 *    modules together. */
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

/** `common`, `app`, `modules/<name>` or `root` for a path relative to src/. */
function areaOf(file) {
  const parts = file.split('/');
  if (parts[0] === 'modules') return parts[1];
  if (parts[0] === 'common' || parts[0] === 'app') return parts[0];
  return 'root';
}

const isTestCode = (file) => /\.spec\.ts$/.test(file) || /(^|\/)testing\//.test(file);

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
  }
  const unique = [...new Set(problems)];
  if (unique.length) {
    process.stderr.write(`architecture check failed:\n${unique.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`architecture check: ${Object.keys(graph).length} files, no import cycle, modules one-way (${MODULE_ORDER.join(' ← ')})\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
