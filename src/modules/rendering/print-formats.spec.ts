import sharp from 'sharp';
import { parseDesign, type Design } from './design';
import { FRAME_STYLES } from './frame';
import { encodeMatrix, imageCanvas, imageModules, QUIET_ZONE } from './qr-svg';
import { RenderingService } from './rendering.service';
import { closeDecoders, decodeBoth } from './testing/qr-decoders';
import { pdfDrawing } from './testing/pdf-inspect';

/** Frames, WebP and PDF: every framed design still decodes to its exact payload with two independent decoders, and a
 * PDF is one vector drawing (no raster image unless a logo is drawn). */

const URL = 'https://scan.example/Ab3dE9x';
const LONG = `https://example.com/menu/${'spring-specials/'.repeat(10)}?utm_source=poster`;
const LONG_TEXT = 'Scan for the full menu!!'; // 24 characters, the longest a frame takes

const rendering = new RenderingService();
let logo: Buffer;

beforeAll(async () => {
  logo = await sharp({ create: { width: 200, height: 120, channels: 4, background: '#c62828' } }).png().toBuffer();
});
afterAll(() => closeDecoders());

const framed = (style: string, extra: Record<string, unknown> = {}, text = 'Scan me'): Design =>
  parseDesign({ frame: { style, text }, ...extra });

async function expectDecodes(image: Buffer, payload: string, label: string): Promise<void> {
  expect({ label, ...(await decodeBoth(image)) }).toEqual({ label, zxing: payload, qr: payload });
}

describe('frames', () => {
  const styles = FRAME_STYLES.filter((s) => s !== 'none');

  it.each(styles.flatMap((style) => [300, 4000].map((size) => [style, size] as const)))('%s at %d px decodes (short text and 24 characters)', async (style, size) => {
    for (const [payload, text, extra] of [
      [URL, 'Scan me', {}],
      [LONG, LONG_TEXT, { shapes: { body: 'rounded', eye_frame: 'rounded', eye_ball: 'circle' }, colors: { foreground: '#1a237e' } }],
    ] as const) {
      const design = framed(style, extra, text);
      const png = await rendering.renderPng(payload, design, null, size);
      const meta = await sharp(png).metadata();
      const canvas = imageCanvas(encodeMatrix(payload, design.error_correction), design);
      // `size` is the longest side: the frame's text band makes the image taller than wide.
      expect(meta.height).toBe(size);
      expect(meta.width).toBe(Math.round((size * canvas.w) / canvas.h));
      expect(meta.width).toBeLessThan(size);
      await expectDecodes(png, payload, `${style} ${size} ${text}`);
    }
  });

  it('decodes framed codes with a gradient, a logo, a transparent background and a coloured frame, as WebP too', async () => {
    const design = parseDesign({
      frame: { style: 'rounded_box', text: 'Scan for the menu', color: '#004d40', text_color: '#fffde7' },
      gradient: { start: '#000000', end: '#1a237e', type: 'radial' },
      shapes: { body: 'dots', eye_frame: 'circle', eye_ball: 'square' },
      logo: { url: 'https://example.com/logo.png' },
      transparent_background: true,
    });
    await expectDecodes(await rendering.renderPng(URL, design, logo, 400), URL, 'png');
    const webp = await rendering.renderWebp(URL, design, logo, 400);
    expect((await sharp(webp).metadata()).format).toBe('webp');
    await expectDecodes(webp, URL, 'webp');
  });

  it('keeps the frame outside the quiet zone: the pixels between the symbol and the frame are background', async () => {
    const design = framed('box', { colors: { foreground: '#000000', background: '#ffffff' } });
    const matrix = encodeMatrix(URL, design.error_correction);
    const canvas = imageCanvas(matrix, design);
    const size = 1000;
    const raw = await sharp(await rendering.renderPng(URL, design, null, size)).greyscale().raw().toBuffer({ resolveWithObject: true });
    const px = size / canvas.h;
    const at = (mx: number, my: number) => raw.data[Math.floor((my - canvas.y) * px) * raw.info.width + Math.floor((mx - canvas.x) * px)];
    // The frame's border is dark, the quiet zone (modules 0..4 from the symbol's edge) is white all around.
    expect(at(canvas.x + 0.1, 10)).toBeLessThan(60);
    for (const m of [0.5, 1.5, 2.5, 3.5]) {
      expect(at(m, 12)).toBeGreaterThan(200);
      expect(at(12, m)).toBeGreaterThan(200);
    }
  });

  it('refuses a size that leaves too few pixels per module once the frame takes its share', async () => {
    await expect(rendering.renderPng(LONG, framed('box'), null, 100)).rejects.toMatchObject({ code: 'invalid_request', extras: { field: 'size' }, message: expect.stringMatching(/and the frame/) });
  });

  it('draws the text in the SVG as paths, with no font or <text> element', async () => {
    const svg = await rendering.renderSvg(URL, framed('banner_top', {}, 'Scan for the menu'), null, 500);
    expect(svg).not.toMatch(/<text|font-family/);
    expect(svg).toMatch(/viewBox="0 -[\d.]+ 37 [\d.]+" width="\d+" height="500"/);
  });
});

describe('PDF', () => {
  it('is one vector drawing, no raster image, of the printed width asked for', async () => {
    for (const design of [parseDesign({}), framed('banner_bottom', { gradient: { start: '#000000', end: '#1a237e' } }), framed('rounded_box', { shapes: { body: 'dots', eye_frame: 'circle' } })]) {
      const pdf = await rendering.renderPdf(URL, design, null, 50);
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const drawing = await pdfDrawing(pdf);
      expect(drawing.pages).toBe(1);
      expect(drawing.images).toBe(0);
      expect(drawing.paths).toBeGreaterThan(0);
      const matrix = encodeMatrix(URL, design.error_correction);
      const canvas = imageCanvas(matrix, design);
      const mm = (pt: number) => (pt * 25.4) / 72;
      // 50 mm for the symbol with its quiet zone; the frame adds to it.
      expect(mm(drawing.width)).toBeCloseTo((50 * canvas.w) / imageModules(matrix), 1);
      expect(mm(drawing.height)).toBeCloseTo((50 * canvas.h) / imageModules(matrix), 1);
      if (!design.frame) expect(mm(drawing.width)).toBeCloseTo(50, 1);
    }
  });

  it('holds exactly one raster image when the design has a logo', async () => {
    const design = parseDesign({ logo: { url: 'https://example.com/logo.png' }, frame: { style: 'box' } });
    const drawing = await pdfDrawing(await rendering.renderPdf(URL, design, logo, 120));
    expect(drawing.images).toBe(1);
    expect(drawing.paths).toBeGreaterThan(0);
  });

  it('decodes once rasterized by a PDF reader (poppler)', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, writeFileSync, readFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'scanlink-pdf-'));
    try {
      for (const style of ['none', 'box', 'banner_top']) {
        const design = parseDesign({ frame: { style, text: 'Scan for the menu' }, shapes: { body: 'classy', eye_frame: 'rounded' } });
        writeFileSync(join(dir, 'code.pdf'), await rendering.renderPdf(LONG, design, null, 60));
        execFileSync(process.env.PDFTOPPM_PATH ?? 'pdftoppm', ['-r', '200', '-png', '-singlefile', join(dir, 'code.pdf'), join(dir, 'page')]);
        await expectDecodes(readFileSync(join(dir, 'page.png')), LONG, `pdf ${style}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses print_mm outside 10..1000', async () => {
    for (const mm of [9.9, 1001, NaN]) {
      await expect(rendering.renderPdf(URL, parseDesign({}), null, mm)).rejects.toMatchObject({ extras: { field: 'print_mm' } });
    }
  });
});

describe('PNG drawn straight into pixels (every design)', () => {
  it.each([
    ['dots, rounded eyes, linear gradient', { shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' }, gradient: { start: '#0b3d91', end: '#8b0000', type: 'linear' } }, false],
    ['rounded, circle eyes, radial gradient', { shapes: { body: 'rounded', eye_frame: 'circle', eye_ball: 'square' }, gradient: { start: '#000000', end: '#1a237e', type: 'radial' } }, false],
    ['classy with eye colours', { shapes: { body: 'classy', eye_frame: 'square', eye_ball: 'rounded' }, eye_colors: { frame: '#004d40', ball: '#b71c1c' } }, false],
    ['extra-rounded, transparent, logo', { shapes: { body: 'extra-rounded', eye_frame: 'circle', eye_ball: 'circle' }, transparent_background: true, logo: { url: 'https://example.com/l.png' } }, true],
    ['banner_bottom frame', { frame: { style: 'banner_bottom', text: 'Scan for the menu' } }, false],
    ['banner_top frame', { frame: { style: 'banner_top', text: 'Menu' } }, false],
    ['box frame, logo', { frame: { style: 'box', text: 'Scan me' }, logo: { url: 'https://example.com/l.png', clear_background: false } }, true],
    ['rounded_box frame, colours, transparent', { frame: { style: 'rounded_box', text: LONG_TEXT, color: '#004d40', text_color: '#fffde7' }, colors: { foreground: '#1a237e' }, transparent_background: true }, false],
  ] as const)('%s: matches what librsvg draws from the SVG, within edge pixels', async (_label, fields, withLogo) => {
    const design = parseDesign(fields);
    for (const size of [300, 1000]) {
      const png = await rendering.renderPng(URL, design, withLogo ? logo : null, size);
      const fast = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const slow = await sharp(Buffer.from(await rendering.renderSvg(URL, design, withLogo ? logo : null, size))).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([fast.info.width, fast.info.height]).toEqual([slow.info.width, slow.info.height]);
      let differing = 0;
      for (let i = 0; i < fast.data.length; i++) if (Math.abs(fast.data[i] - slow.data[i]) > 64) differing++;
      // Modules are snapped to whole pixels here; only pixels along edges may differ.
      expect(differing / fast.data.length).toBeLessThan(0.05);
      // A transparent background keeps its alpha channel; an opaque one has none.
      expect((await sharp(png).metadata()).hasAlpha).toBe(design.transparent_background);
      await expectDecodes(png, URL, `${_label} ${size}`);
    }
  });

  it('keeps a black-on-white framed code one channel, and a coloured one three', async () => {
    expect((await sharp(await rendering.renderPng(URL, framed('box'), null, 600)).metadata()).channels).toBe(1);
    const coloured = parseDesign({ frame: { style: 'box', color: '#004d40' } });
    expect((await sharp(await rendering.renderPng(URL, coloured, null, 600)).metadata()).channels).toBe(3);
  });

  it('matches what librsvg draws from the SVG, within edge pixels', async () => {
    for (const size of [300, 1000]) {
      const design = parseDesign({ eye_colors: { frame: '#1a237e', ball: '#b71c1c' }, colors: { foreground: '#222222', background: '#fafafa' } });
      const fast = await sharp(await rendering.renderPng(URL, design, null, size)).raw().toBuffer();
      const svg = await rendering.renderSvg(URL, design, null, size);
      const slow = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
      expect(fast.length).toBe(slow.length);
      let differing = 0;
      for (let i = 0; i < fast.length; i++) if (Math.abs(fast[i] - slow[i]) > 64) differing++;
      // Only pixels on module edges may differ (rounded to whole pixels here, anti-aliased there).
      expect(differing / fast.length).toBeLessThan(0.05);
    }
  });

  it('writes a flat-colour design (eye colours, a one-colour logo) as a palette PNG that decodes and matches the RGB drawing', async () => {
    const design = parseDesign({
      colors: { foreground: '#1a237e' },
      eye_colors: { frame: '#004d40', ball: '#b71c1c' },
      shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' },
      logo: { url: 'https://example.com/logo.png' },
    });
    for (const size of [300, 4000]) {
      const png = await rendering.renderPng(LONG, design, logo, size);
      expect((await sharp(png).metadata()).isPalette).toBe(true);
      await expectDecodes(png, LONG, `palette ${size}`);
      // The same design as WebP is drawn in RGB (255 edge levels, 32 here): every pixel within a few levels.
      if (size === 300) {
        const fromPalette = await sharp(png).removeAlpha().raw().toBuffer();
        const fromRgb = await sharp(await rendering.renderWebp(LONG, design, logo, size)).removeAlpha().raw().toBuffer();
        expect(fromPalette.length).toBe(fromRgb.length);
        let worst = 0;
        for (let i = 0; i < fromPalette.length; i++) worst = Math.max(worst, Math.abs(fromPalette[i] - fromRgb[i]));
        expect(worst).toBeGreaterThan(0);
        expect(worst).toBeLessThanOrEqual(6);
      }
    }
  });

  it('draws a logo of more colours than a palette holds in RGB, and it decodes', async () => {
    // A 256-step ramp in each of two channels: thousands of colours.
    const ramp = Buffer.alloc(256 * 256 * 3);
    for (let y = 0; y < 256; y++) for (let x = 0; x < 256; x++) ramp.set([x, y, 128], (y * 256 + x) * 3);
    const manyColours = await sharp(ramp, { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
    const design = parseDesign({ colors: { foreground: '#1a237e' }, logo: { url: 'https://example.com/logo.png' } });
    for (let round = 0; round < 2; round++) {
      // The second time the logo is known not to fit and goes to RGB straight away: the same image.
      const png = await rendering.renderPng(LONG, design, manyColours, 600);
      const meta = await sharp(png).metadata();
      expect([meta.isPalette, meta.channels]).toEqual([false, 3]);
      await expectDecodes(png, LONG, `many-coloured logo, round ${round}`);
    }
  });

  it('keeps black-on-white codes one channel, and decodes with eye colours and logos (cleared or not)', async () => {
    const plain = await rendering.renderPng(LONG, parseDesign({}), null, 500);
    expect((await sharp(plain).metadata()).channels).toBe(1);
    await expectDecodes(plain, LONG, 'plain');
    for (const clear of [true, false]) {
      const design = parseDesign({ logo: { url: 'https://example.com/logo.png', clear_background: clear }, eye_colors: { frame: '#1a237e' } });
      for (const size of [300, 4000]) await expectDecodes(await rendering.renderPng(LONG, design, logo, size), LONG, `logo clear=${clear} ${size}`);
    }
  });
});

describe('gradients as palette PNGs', () => {
  const gradient = (type: 'linear' | 'radial', extra: Record<string, unknown> = {}): Design =>
    parseDesign({ shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' }, gradient: { start: '#0b3d91', end: '#8b0000', type }, ...extra });
  const withLogo = { logo: { url: 'https://example.com/logo.png' } };
  const withFrame = { frame: { style: 'banner_bottom', text: 'Scan for the menu' } };

  it.each([
    ['linear', {}, false, [300, 4000]],
    ['radial', {}, false, [300, 4000]],
    ['linear', withLogo, true, [300, 4000]],
    ['radial', withLogo, true, [300]],
    ['linear', withFrame, false, [300]],
    ['radial', { ...withFrame, ...withLogo }, true, [300, 4000]],
  ] as const)('%s %j (logo drawn: %s): decodes at %j px, a palette PNG unless framed', async (type, extra, hasLogo, sizes) => {
    const design = gradient(type, extra);
    for (const size of sizes) {
      const png = await rendering.renderPng(LONG, design, hasLogo ? logo : null, size);
      const meta = await sharp(png).metadata();
      // A frame's anti-aliased text is drawn in RGB.
      expect({ size, isPalette: meta.isPalette, channels: meta.channels }).toEqual({ size, isPalette: !design.frame, channels: 3 });
      await expectDecodes(png, LONG, `${type} ${JSON.stringify(extra)} ${size}`);
    }
  }, 180_000);

  /** The same design drawn as a palette PNG and as WebP (RGB: the exact gradient and 255 edge levels), as RGB pixels. */
  async function bothWays(design: Design, size: number): Promise<[Buffer, Buffer]> {
    const fromPalette = await sharp(await rendering.renderPng(URL, design, null, size)).removeAlpha().raw().toBuffer();
    const fromRgb = await sharp(await rendering.renderWebp(URL, design, null, size)).removeAlpha().raw().toBuffer();
    expect(fromPalette.length).toBe(size * size * 3);
    expect(fromRgb.length).toBe(fromPalette.length);
    return [fromPalette, fromRgb];
  }

  /** Whether pixel `p` of a `size` px image of `design` (bothWays' payload) lies outside the eyes and a pixel around
   * them: the eyes' edges are anti-aliased (8 levels in a palette image, 255 in RGB). */
  function outsideEyes(design: Design, size: number): (p: number) => boolean {
    const total = imageModules(encodeMatrix(URL, design.error_correction));
    const n = total - 2 * QUIET_ZONE;
    const k = size / total;
    const corners = [
      [QUIET_ZONE, QUIET_ZONE],
      [QUIET_ZONE + n - 7, QUIET_ZONE],
      [QUIET_ZONE, QUIET_ZONE + n - 7],
    ];
    return (p) => {
      const x = p % size;
      const y = Math.floor(p / size);
      return !corners.some(([ex, ey]) => x >= ex * k - 2 && x < (ex + 7) * k + 2 && y >= ey * k - 2 && y < (ey + 7) * k + 2);
    };
  }

  it.each(['linear', 'radial'] as const)('%s: square modules (whole pixels, no edges) within one level of the exact gradient, no banding', async (type) => {
    const design = parseDesign({ shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' }, gradient: { start: '#0b3d91', end: '#8b0000', type } });
    for (const size of [300, 1000]) {
      const [fromPalette, fromRgb] = await bothWays(design, size);
      expect((await sharp(await rendering.renderPng(URL, design, null, size)).metadata()).isPalette).toBe(true);
      const body = outsideEyes(design, size);
      let worst = 0;
      for (let i = 0; i < fromPalette.length; i++) if (body(Math.floor(i / 3))) worst = Math.max(worst, Math.abs(fromPalette[i] - fromRgb[i]));
      expect({ size, worst: worst <= 1 ? 'at most 1' : worst }).toEqual({ size, worst: 'at most 1' });
      if (type === 'linear') {
        // Along a row, neighbouring painted pixels (the colour follows x + y) differ by at most one level per channel.
        const painted = (p: number) => !(fromPalette[3 * p] === 255 && fromPalette[3 * p + 1] === 255 && fromPalette[3 * p + 2] === 255);
        let steepest = 0;
        for (let p = 0; p < size * size - 1; p++) {
          if ((p + 1) % size === 0 || !body(p) || !painted(p) || !painted(p + 1)) continue;
          for (let c = 0; c < 3; c++) steepest = Math.max(steepest, Math.abs(fromPalette[3 * p + 3 + c] - fromPalette[3 * p + c]));
        }
        expect({ size, steepest: steepest <= 1 ? 'at most 1' : steepest }).toEqual({ size, steepest: 'at most 1' });
      }
    }
  });

  it.each(['linear', 'radial'] as const)('%s: anti-aliased edges (dots, round eyes) within 24 levels of the RGB drawing', async (type) => {
    for (const size of [300, 1000]) {
      const [fromPalette, fromRgb] = await bothWays(gradient(type), size);
      let worst = 0;
      let differing = 0;
      for (let i = 0; i < fromPalette.length; i++) {
        const diff = Math.abs(fromPalette[i] - fromRgb[i]);
        worst = Math.max(worst, diff);
        if (diff > 1) differing++;
      }
      expect(worst).toBeGreaterThan(1);
      expect(worst).toBeLessThanOrEqual(24);
      // Only edge pixels: a small share of the image.
      expect(differing / fromPalette.length).toBeLessThan(0.1);
    }
  });

  it('draws a gradient with a logo of many colours in RGB (twice: the second time straight away), and it decodes', async () => {
    const ramp = Buffer.alloc(128 * 128 * 3);
    for (let y = 0; y < 128; y++) for (let x = 0; x < 128; x++) ramp.set([x * 2, y * 2, 128], (y * 128 + x) * 3);
    const manyColours = await sharp(ramp, { raw: { width: 128, height: 128, channels: 3 } }).png().toBuffer();
    for (let round = 0; round < 2; round++) {
      const png = await rendering.renderPng(LONG, gradient('radial', withLogo), manyColours, 600);
      const meta = await sharp(png).metadata();
      expect([round, meta.isPalette, meta.channels]).toEqual([round, false, 3]);
      await expectDecodes(png, LONG, `gradient, many-coloured logo, round ${round}`);
    }
  });

  it('draws a gradient wider than 160 levels as a palette PNG whose bands differ by at most two levels, and it decodes', async () => {
    // Dark red to dark blue: 176 levels in two channels, drawn in 160 steps.
    const design = parseDesign({ shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' }, gradient: { start: '#b00000', end: '#0000b0', type: 'linear' } });
    const png = await rendering.renderPng(LONG, design, null, 600);
    const meta = await sharp(png).metadata();
    expect([meta.isPalette, meta.channels]).toEqual([true, 3]);
    await expectDecodes(png, LONG, 'wide gradient');
    const size = 1000;
    const [fromPalette, fromRgb] = await bothWays(design, size);
    // Painted pixels outside the eyes: within two levels of the exact gradient, neighbours along a row at most two apart.
    const body = outsideEyes(design, size);
    const painted = (p: number) => !(fromPalette[3 * p] === 255 && fromPalette[3 * p + 1] === 255 && fromPalette[3 * p + 2] === 255);
    let worst = 0;
    let steepest = 0;
    for (let p = 0; p < size * size - 1; p++) {
      if ((p + 1) % size === 0 || !body(p) || !painted(p) || !painted(p + 1)) continue;
      for (let c = 0; c < 3; c++) {
        worst = Math.max(worst, Math.abs(fromPalette[3 * p + c] - fromRgb[3 * p + c]));
        steepest = Math.max(steepest, Math.abs(fromPalette[3 * p + 3 + c] - fromPalette[3 * p + c]));
      }
    }
    expect(worst).toBeLessThanOrEqual(2);
    expect(steepest).toBeLessThanOrEqual(2);
    expect(steepest).toBeGreaterThan(0);
  });
});
