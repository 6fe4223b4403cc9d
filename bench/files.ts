/**
 * bench:files — uploads through the real api (POST /v1/files, filesystem storage) from this process to an api in a
 * child process, and prints upload MB/s and the api's peak RSS (Linux VmHWM, reset after a warm-up upload) against its
 * idle RSS. The peak after the larger uploads equal to the one after the smaller ones shows memory does not follow the
 * file's size (what it grows by at all is garbage from the 64 KB chunks, collected as usual).
 * The body is generated on the fly (a WAV header, then zeros, in 64 KB chunks), so the client holds no file either.
 * Sizes: BENCH_FILE_MB (default 25), then four times that; BENCH_FILE_RUNS (default 3) runs each, median MB/s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { wavHeader } from '../test/setup/files';
import { median, ROOT, stopChild } from './scan-load';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_FILE_MB ?? 25);
const RUNS = Number(process.env.BENCH_FILE_RUNS ?? 3);

function startApi(): Promise<{ child: ChildProcess; origin: string; key: string }> {
  const tsNode = join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
  const env = { ...process.env, FILE_MAX_BYTES: String(SIZE_MB * 4 * MB + MB) };
  const child = spawn(process.execPath, [tsNode, '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(__dirname, 'files-api.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /ready (\{.*\})\n/.exec(out);
      if (m) resolve({ child, ...(JSON.parse(m[1]) as { origin: string; key: string }) });
    });
    child.once('exit', (code) => reject(new Error(`api exited with ${code}: ${out}`)));
  });
}

/** kB values of /proc/<pid>/status. */
function status(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

function upload(origin: string, key: string, size: number): Promise<number> {
  const boundary = `----bench${Date.now()}`;
  const pre = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const head = wavHeader(size - 44);
  // Random samples per run: every upload is new bytes (no shortcut for content already stored).
  const chunk = Buffer.alloc(64 * 1024, Math.floor(Math.random() * 256));
  async function* body() {
    yield pre;
    yield head;
    for (let left = size - head.length; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
    yield post;
  }
  const url = new URL(`${origin}/v1/files`);
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(pre.length + size + post.length) },
      },
      (res) => {
        res.resume().on('end', () => (res.statusCode === 201 ? resolve(Number(process.hrtime.bigint() - started) / 1e9) : reject(new Error(`upload answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    Readable.from(body()).pipe(req);
  });
}

async function main(): Promise<void> {
  const api = await startApi();
  const pid = api.child.pid!;
  try {
    await upload(api.origin, api.key, MB); // warm-up: first request, first multipart parse, first storage write
    await new Promise((r) => setTimeout(r, 500));
    console.log(`bench:files — POST /v1/files through the api (filesystem storage), ${RUNS} runs per size; ${`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`}`);
    const idle = status(pid).rss;
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM (peak RSS) to the current RSS
    for (const mb of [SIZE_MB, SIZE_MB * 4]) {
      const rates: number[] = [];
      for (let i = 0; i < RUNS; i++) rates.push(mb / (await upload(api.origin, api.key, mb * MB)));
      const peak = status(pid).hwm;
      console.log(
        `  ${String(mb).padStart(4)} MB: ${median(rates).toFixed(1)} MB/s (runs ${rates.map((r) => r.toFixed(1)).join(', ')}); ` +
          `api peak RSS so far ${(peak / MB).toFixed(0)} MB = idle ${(idle / MB).toFixed(0)} MB + ${((peak - idle) / MB).toFixed(1)} MB`,
      );
    }
  } finally {
    await stopChild(api.child);
  }
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
