/* `npm run bench:render`: rendering throughput and memory, measured within one run so the ratios hold on any machine.
 * Prints figures only (no assertions). */
import { readdirSync, readFileSync } from 'node:fs';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { BODY_SHAPES, Design, parseDesign } from '../src/modules/rendering/design';
import { drawSvg, encodeMatrix } from '../src/modules/rendering/qr-svg';
import { RenderingService } from '../src/modules/rendering/rendering.service';
import { OUT_OF_PROCESS_PNG_SIZE, PngRenderProcess } from '../src/modules/qr-codes/png-render-process';

let peakRss = process.memoryUsage().rss;
const sampleRss = () => {
  const rss = process.memoryUsage().rss;
  if (rss > peakRss) peakRss = rss;
};
const sampler = setInterval(sampleRss, 5);
sampler.unref();

/** CPU seconds used so far by each child process of this one (the PNG renderer child), by pid: a recycled child's
 * last reading stays. */
const childCpu = new Map<number, { first: number; last: number }>();
const TICKS = 100; // USER_HZ
function sampleChildCpu(): void {
  try {
    for (const task of readdirSync('/proc/self/task')) {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) {
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
        const seen = childCpu.get(pid);
        if (seen) seen.last = seconds;
        else childCpu.set(pid, { first: seconds, last: seconds });
      }
    }
  } catch {
    // a child that exited between the listing and the read
  }
}
const childCpuSeconds = (): number => [...childCpu.values()].reduce((sum, c) => sum + c.last - c.first, 0);

/** Runs `fn` repeatedly for about `ms` milliseconds (after a short warm-up) and returns operations per second. */
async function opsPerSecond(fn: () => unknown, ms: number): Promise<number> {
  return (await measure(fn, ms)).ops;
}

/** As opsPerSecond, with the CPU seconds per operation of this process (all threads: libvips encodes on its own) and
 * of its children (the api's PNG renderer child, which draws the large sizes). */
async function measure(fn: () => unknown, ms: number): Promise<{ ops: number; cpu: number }> {
  await fn();
  let n = 0;
  sampleChildCpu();
  const childBefore = childCpuSeconds();
  const used = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    await fn();
    n++;
    sampleRss();
    now = process.hrtime.bigint();
  }
  const cpu = process.cpuUsage(used);
  sampleChildCpu();
  return { ops: n / (Number(now - start) / 1e9), cpu: ((cpu.user + cpu.system) / 1e6 + childCpuSeconds() - childBefore) / n };
}

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const budget = quick ? 300 : 1500;
  const payloads: Array<[string, string]> = [
    ['short URL (v2)', 'https://scan.example/Ab3dE9'],
    [
      'vCard (v10)',
      'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nORG:Example Ltd\r\nTITLE:CTO\r\nTEL;TYPE=CELL:+15551234567\r\nEMAIL:jane@example.com\r\nURL:https://example.com\r\nADR:;;1 Main St;Springfield;;;\r\nEND:VCARD',
    ],
  ];
  const styled: Design = parseDesign({
    shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' },
    gradient: { start: '#0b3d91', end: '#8b0000', type: 'linear' },
  });

  console.log(`Scanlink rendering benchmark (node ${process.version}, ${budget} ms per figure)\n`);
  console.log('SVG: plain qrcode.toString(svg) vs styled renderer (encode + draw), same payload and error correction');
  console.log('(measured in interleaved rounds so a change in machine load hits both sides alike)');
  const rounds = 5;
  for (const [label, payload] of payloads) {
    const variants: Array<[string, () => unknown]> = [
      ['plain', () => QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M' })],
      ...BODY_SHAPES.map((body): [string, () => unknown] => {
        const design = { ...styled, shapes: { ...styled.shapes, body } };
        return [`styled ${body}`, () => drawSvg(encodeMatrix(payload, design.error_correction), design)];
      }),
    ];
    const totals = variants.map(() => 0);
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < variants.length; i++) totals[i] += await opsPerSecond(variants[i][1], budget / rounds);
    }
    const plain = totals[0] / rounds;
    console.log(`  ${label.padEnd(16)} ${'plain'.padEnd(21)} ${fmt(plain).padStart(6)} /s`);
    for (let i = 1; i < variants.length; i++) {
      const ops = totals[i] / rounds;
      console.log(`  ${label.padEnd(16)} ${variants[i][0].padEnd(21)} ${fmt(ops).padStart(6)} /s   cost ${(plain / ops).toFixed(2)}× plain`);
    }
  }

  const rendering = new RenderingService();
  // The production path: above OUT_OF_PROCESS_PNG_SIZE a download (and each image of a batch ZIP) is drawn in the
  // api's renderer child process, one request after the other here.
  const child = new PngRenderProcess();
  const renderPng = (payload: string, design: Design, logo: Buffer | null, size: number) =>
    size > OUT_OF_PROCESS_PNG_SIZE ? child.render(payload, design, logo, size) : rendering.renderPng(payload, design, logo, size);
  sampleRss();
  console.log(`\nPeak RSS after the SVG figures: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  console.log('\nPNG: sharp encoding a raw one-channel buffer of the same size as a one-channel PNG (the limit) vs rendered designs, same run');
  console.log("(raw buffer: the plain design's own pixels, so both sides compress the same content; measured in interleaved");
  console.log(' rounds so a change in machine load hits every figure alike; cpu: process CPU time per image, libvips threads');
  console.log(' included, which a loaded machine disturbs less than the wall clock; designs above 1,500 px are drawn in the');
  console.log(" renderer child process a download and a batch ZIP use, and its CPU time is counted)");
  const logo = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#c62828' } }).png().toBuffer();
  const [label, payload] = payloads[0];
  const designs: Array<[string, Design, Buffer | null]> = [
    ['plain', parseDesign({}), null],
    ['logo', parseDesign({ logo: { url: 'https://example.com/logo.png' } }), logo],
    ['framed', parseDesign({ frame: { style: 'banner_bottom', text: 'Scan for the menu' } }), null],
    ['gradient (dots, round eyes)', styled, null],
  ];
  for (const size of [300, 1000, 4000]) {
    const t = size === 4000 ? budget * 2 : budget;
    const pixels = await sharp(await rendering.renderPng(payload, designs[0][1], null, size)).greyscale().raw().toBuffer();
    const variants: Array<() => Promise<unknown>> = [
      // toColourspace('b-w'): without it sharp writes the one channel out as an RGB PNG, a slower encode than the limit.
      () => sharp(pixels, { raw: { width: size, height: size, channels: 1 } }).toColourspace('b-w').png({ compressionLevel: 6 }).toBuffer(),
      ...designs.map(([, design, withLogo]) => () => renderPng(payload, design, withLogo, size)),
    ];
    const wall = variants.map(() => 0);
    const cpu = variants.map(() => 0);
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < variants.length; i++) {
        const m = await measure(variants[i], t / rounds);
        wall[i] += m.ops / rounds;
        cpu[i] += m.cpu / rounds;
      }
    }
    console.log(`  ${label} ${String(size).padStart(4)} px  raw encode ${fmt(wall[0]).padStart(6)} /s   cpu ${fmt(cpu[0] * 1000).padStart(6)} ms each`);
    designs.forEach(([name], j) => {
      const i = j + 1;
      console.log(
        `    ${name.padEnd(28)} ${fmt(wall[i]).padStart(6)} /s   ${fmt(1000 / wall[i]).padStart(6)} ms each   ${((wall[i] / wall[0]) * 100).toFixed(0).padStart(3)} % of raw` +
          `   cpu ${fmt(cpu[i] * 1000).padStart(6)} ms each, ${((cpu[0] / cpu[i]) * 100).toFixed(0).padStart(3)} % of raw`,
      );
    });
  }
  sampleRss();
  child.stop();
  console.log(`\nPeak RSS (whole run, 4000 px PNGs included): ${(peakRss / 1024 / 1024).toFixed(0)} MB (the renderer child's not included)`);
}

void main();
