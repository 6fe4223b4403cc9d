#!/usr/bin/env node
'use strict';
/* A webhook receiver for trying Scanlink on one machine: `SCANLINK_WEBHOOK_SECRET=whsec_… node scripts/webhook-receiver.js [port]`.
 * Prints each delivery's event type and id and whether its signature verifies, with the verify() function of
 * docs/webhooks.md ("Verify the signature"). Answers 200 to a valid delivery, 400 otherwise. Node built-ins only. */
const crypto = require('node:crypto');
const http = require('node:http');

const SECRET = process.env.SCANLINK_WEBHOOK_SECRET; // whsec_…
const TOLERANCE_SECONDS = 5 * 60;

function verify(rawBody, header, secret, now = Math.floor(Date.now() / 1000)) {
  const parts = String(header || '').split(',').map((p) => p.split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v || '', 'hex'));
  if (!Number.isInteger(t) || signatures.length === 0) return false;
  if (Math.abs(now - t) > TOLERANCE_SECONDS) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return signatures.some((s) => s.length === expected.length && crypto.timingSafeEqual(s, expected));
}

if (!SECRET) {
  process.stderr.write('Set SCANLINK_WEBHOOK_SECRET to the endpoint\'s whsec_… secret (returned once by POST /v1/webhooks).\n');
  process.exit(2);
}
const port = Number(process.argv[2] || 9999);
http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const ok = verify(raw, req.headers['scanlink-signature'], SECRET);
      let event = {};
      try {
        event = JSON.parse(raw);
      } catch {
        /* not JSON: reported as unverified below */
      }
      process.stdout.write(`${event.type ?? '?'} ${event.id ?? ''} signature ${ok ? 'verified' : 'INVALID'}\n`);
      res.writeHead(ok ? 200 : 400).end();
    });
  })
  .listen(port, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${port}/hook\n`));
