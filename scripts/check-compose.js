#!/usr/bin/env node
'use strict';
/* `npm run -s lint:compose` (also in .ci/run): docker/compose.yaml cannot run here (no Docker engine), so CI checks it
 * by reading. 1. dclint validates it against the Compose Specification schema (and its lint rules, docker/dclint.json).
 * 2. The deployment rules docs/deploy.md promises, checked on the parsed file (anchors and merge keys resolved). */
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const YAML = require('yaml');

const ROOT = path.resolve(__dirname, '..');
/** docker/compose.yaml, or the file named on the command line (the checker's own tests). */
const FILE = path.resolve(process.argv[2] || path.join(ROOT, 'docker', 'compose.yaml'));

const lint = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'dclint', 'bin', 'dclint.cjs'), '-c', path.join(ROOT, 'docker', 'dclint.json'), '--max-warnings', '0', FILE], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (lint.status !== 0) {
  process.stderr.write('compose check: dclint failed (schema or lint rule above)\n');
  process.exit(1);
}

const doc = YAML.parse(fs.readFileSync(FILE, 'utf8'), { merge: true, maxAliasCount: -1 });
const services = doc.services ?? {};
const problems = [];
const need = (ok, message) => ok || problems.push(message);

// `${VAR:-default}` → default (what compose runs with nothing set).
const withDefault = (value) => String(value ?? '').replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

const PORTS = { api: '3000', scan: '3001', worker: '3002' };
for (const [name, port] of Object.entries(PORTS)) {
  const s = services[name];
  if (!need(s, `service ${name} is missing`)) continue;
  need(!s.ports, `${name} is replicated: it must not publish host ports (only caddy does)`);
  need(!s.container_name, `${name} is replicated: no container_name`);
  need(Number(withDefault(s.deploy?.replicas)) >= 2, `${name}: deploy.replicas should default to 2 or more`);
  const test = (s.healthcheck?.test ?? []).join(' ');
  need(test.includes(`127.0.0.1:${port}/health/ready`), `${name}: the health check must call /health/ready on ${port}`);
  need(s.labels?.['prometheus.io/scrape'] === 'true' && s.labels?.['prometheus.io/port'] === port, `${name}: prometheus.io scrape labels for port ${port}`);
  need(/^\d+s$/.test(s.stop_grace_period ?? '') && parseInt(s.stop_grace_period, 10) > 25, `${name}: stop_grace_period must exceed the 25 s drain`);
  need(s.depends_on?.migrate?.condition === 'service_completed_successfully', `${name}: must wait for the migrate step`);
}

const caddy = services.caddy;
if (need(caddy, 'service caddy is missing')) {
  need((caddy.ports ?? []).some((p) => String(p).endsWith(':443')), 'caddy publishes 443');
  const address = caddy.networks?.scanlink?.ipv4_address;
  for (const name of ['api', 'scan']) {
    need(address && withDefault(services[name]?.environment?.TRUST_PROXY) === address, `${name}: TRUST_PROXY must name caddy (${address})`);
  }
}
need(services.migrate?.restart === 'no', 'migrate is a one-shot step (restart: "no")');
for (const [name, mount] of [['postgres', '/var/lib/postgresql/data'], ['redis', '/data']]) {
  need((services[name]?.volumes ?? []).some((v) => String(v).endsWith(`:${mount}`)), `${name} keeps its data in a volume at ${mount}`);
}
for (const [name, s] of Object.entries(services)) {
  if (!['caddy', 'prometheus'].includes(name)) need(!s.ports, `${name} must not publish host ports`);
}

if (problems.length > 0) {
  process.stderr.write(`compose check: ${problems.length} problem(s) in ${path.relative(ROOT, FILE)}\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`compose check: ${path.relative(ROOT, FILE)} is valid (${Object.keys(services).length} services)\n`);
