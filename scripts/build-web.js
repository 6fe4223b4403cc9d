#!/usr/bin/env node
'use strict';
/* Builds the dashboard (web/, Vite) into dist/web, served by the api at /app/ (src/app/dashboard.ts), and prints the
 * JavaScript a first visit downloads: the entry script of index.html plus every module it preloads, gzipped. Fails when
 * that is over FIRST_LOAD_LIMIT (routes are loaded on demand; a screen's code must not land in the entry). Run by
 * `npm run build` after `nest build` (which empties dist/). */
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist', 'web');
const FIRST_LOAD_LIMIT = 300 * 1024;

function build() {
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', path.join(ROOT, 'web', 'vite.config.mjs'), '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** The scripts index.html loads at once: `<script type="module" src>` and `<link rel="modulepreload" href>`. */
function firstLoadScripts(html) {
  const found = new Set();
  for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) found.add(m[1]);
  for (const m of html.matchAll(/<link[^>]*href="([^"]+\.js)"[^>]*rel="modulepreload"/g)) found.add(m[1]);
  return [...found].map((src) => path.join(OUT, src.replace(/^\/app\//, '')));
}

function report() {
  const html = fs.readFileSync(path.join(OUT, 'index.html'), 'utf8');
  if (/<script(?![^>]*\bsrc=)[^>]*>/.test(html)) {
    console.error('dashboard: index.html has an inline script; the CSP of /app/ forbids it');
    process.exit(1);
  }
  let total = 0;
  for (const file of firstLoadScripts(html)) total += zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  console.log(`dashboard: first load ${kb(total)} of gzipped JavaScript (limit ${kb(FIRST_LOAD_LIMIT)}) -> dist/web`);
  if (total > FIRST_LOAD_LIMIT) {
    console.error('dashboard: the first load is over the limit: load the new code from a route (lazy import), not from the shell');
    process.exit(1);
  }
}

if (!process.argv.includes('--report-only')) build();
report();
