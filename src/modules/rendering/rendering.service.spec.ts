import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { BODY_SHAPES, Design, EYE_BALL_SHAPES, EYE_FRAME_SHAPES, parseDesign } from './design';
import { ImagesService } from '../images/images.service';
import { normalizeLogo } from '../images/logo';
import { FsImageStorage } from '../images/storage/fs-image-storage';
import { encodeMatrix, imageModules, LOGO_WIDTH_FRACTION } from './qr-svg';
import { RenderingService } from './rendering.service';
import { closeDecoders, decodeBoth } from './testing/qr-decoders';

/** Every design must scan: each PNG is decoded by two independent decoders (zxing-cpp and paulmillr's qr) back to the
 * exact payload. */

const SHORT = 'https://scan.example/Ab3'; // fits version 2 at M: 100 px leaves 3 px per module
const MEDIUM = 'https://example.com/a-longer-path/with/segments?utm_source=print'; // version 4 at M

let dir: string;
let rendering: RenderingService;
let images: ImagesService;
let logo: Buffer;
let wideLogo: Buffer;

async function expectScans(payload: string, design: Design, size: number, withLogo: Buffer | null = null): Promise<void> {
  const png = await rendering.renderPng(payload, design, withLogo, size);
  const meta = await sharp(png).metadata();
  expect([meta.width, meta.height]).toEqual([size, size]);
  const decoded = await decodeBoth(png);
  expect({ design: describeDesign(design), size, ...decoded }).toEqual({ design: describeDesign(design), size, zxing: payload, qr: payload });
}

const describeDesign = (d: Design) =>
  `${d.shapes.body}/${d.shapes.eye_frame}/${d.shapes.eye_ball} ec=${d.error_correction}${d.gradient ? ` ${d.gradient.type}` : ''}${d.logo ? ' logo' : ''}${d.transparent_background ? ' transparent' : ''}`;

/** The smallest PNG size the service accepts for this payload and design. */
function minSize(payload: string, design: Design): number {
  const modules = imageModules(encodeMatrix(payload, design.error_correction));
  return Math.max(100, Math.ceil(modules * (design.shapes.eye_frame === 'circle' ? 3 : 2.5)));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scanlink-render-'));
  const config = { logoAllowHosts: [], imageBaseUrl: 'http://img.test/images' } as unknown as AppConfig;
  rendering = new RenderingService();
  images = new ImagesService(config, new FsImageStorage(dir, config.imageBaseUrl));
  // A worst-case logo (solid dark, opaque) and a wide two-colour one.
  logo = await normalizeLogo(await sharp({ create: { width: 300, height: 300, channels: 4, background: '#1b1b1b' } }).png().toBuffer());
  wideLogo = await normalizeLogo(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120"><rect width="300" height="120" fill="#e33"/><circle cx="150" cy="60" r="50" fill="#236"/></svg>'),
  );
});

afterAll(async () => {
  await images.onModuleDestroy();
  await closeDecoders();
  rmSync(dir, { recursive: true, force: true });
});

describe('RenderingService decode matrix', () => {
  const combos = BODY_SHAPES.flatMap((body) =>
    EYE_FRAME_SHAPES.flatMap((eye_frame) => EYE_BALL_SHAPES.map((eye_ball) => ({ body, eye_frame, eye_ball }))),
  );

  it('scans every body × eye frame × eye ball combination at 100 px', async () => {
    for (const shapes of combos) await expectScans(SHORT, parseDesign({ shapes }), 100);
  });

  it('scans every combination at the smallest size it allows for a longer payload', async () => {
    for (const shapes of combos) {
      const design = parseDesign({ shapes });
      await expectScans(MEDIUM, design, minSize(MEDIUM, design));
    }
  });

  it('scans linear and radial gradients with eye colours, on every body shape', async () => {
    for (const body of BODY_SHAPES) {
      for (const type of ['linear', 'radial'] as const) {
        const design = parseDesign({
          shapes: { body, eye_frame: type === 'linear' ? 'rounded' : 'circle', eye_ball: 'circle' },
          gradient: { start: '#0b3d91', end: '#8b0000', type },
          eye_colors: type === 'radial' ? { frame: '#004d00', ball: '#5a005a' } : null,
          colors: { background: '#fffbe6' },
        });
        await expectScans(MEDIUM, design, minSize(MEDIUM, design));
      }
    }
  });

  it('scans a centered logo at H, cleared or drawn over the modules, on every body shape', async () => {
    for (const body of BODY_SHAPES) {
      for (const clear of [true, false]) {
        const design = parseDesign({ shapes: { body, eye_frame: clear ? 'square' : 'circle' }, logo: { url: 'https://cdn.example/l.png', clear_background: clear } });
        expect(design.error_correction).toBe('H');
        await expectScans(MEDIUM, design, minSize(MEDIUM, design), clear ? logo : wideLogo);
      }
    }
  });

  it('scans a logo at lower error correction levels chosen by the caller', async () => {
    for (const ec of ['L', 'M', 'Q'] as const) {
      const design = parseDesign({ error_correction: ec, logo: { url: 'https://cdn.example/l.png' } });
      await expectScans(MEDIUM, design, minSize(MEDIUM, design), logo);
    }
  });

  it('scans transparent backgrounds (flattened onto white, as printed)', async () => {
    for (const body of BODY_SHAPES) {
      const design = parseDesign({ shapes: { body }, transparent_background: true, colors: { foreground: '#202060', background: '#000000' } });
      const png = await rendering.renderPng(SHORT, design, null, 100);
      const meta = await sharp(png).metadata();
      expect(meta.hasAlpha).toBe(true);
      // The corner (quiet zone) is fully transparent.
      const { data } = await sharp(png).extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
      expect(data[3]).toBe(0);
      await expectScans(SHORT, design, 100);
    }
  });

  it('scans at 4000 px: every body shape, with gradients, a logo and a transparent background among them', async () => {
    const designs: Array<[Design, Buffer | null]> = [
      [parseDesign({ shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' } }), null],
      [parseDesign({ shapes: { body: 'dots', eye_frame: 'circle', eye_ball: 'circle' }, gradient: { start: '#000000', end: '#0b3d91', type: 'radial' } }), null],
      [parseDesign({ shapes: { body: 'rounded', eye_frame: 'rounded', eye_ball: 'rounded' }, gradient: { start: '#3b0a45', end: '#004d40' } }), null],
      [parseDesign({ shapes: { body: 'extra-rounded', eye_frame: 'circle', eye_ball: 'square' }, logo: { url: 'https://cdn.example/l.png' } }), logo],
      [parseDesign({ shapes: { body: 'classy', eye_frame: 'square', eye_ball: 'circle' }, transparent_background: true }), null],
    ];
    for (const [design, withLogo] of designs) await expectScans(MEDIUM, design, 4000, withLogo);
    // Two decoders read five 16-megapixel images: about 40 s alone on 2 cores, over a minute beside other test files.
  }, 180_000);

  it('decodes the static payload of every kind of content exactly', async () => {
    const payloads = [
      'https://example.com/path?query=1&utm_source=flyer#section',
      'Plain text with punctuation: 100% sure; "quoted", (parens) & ampersands.',
      'WIFI:T:WPA;S:Café \\;Guest\\;;P:p@ss\\:word\\\\;H:false;;',
      'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nORG:Example Ltd\r\nTITLE:CTO\r\nTEL;TYPE=CELL:+15551234567\r\nEMAIL:jane@example.com\r\nURL:https://example.com\r\nADR:;;1 Main St;Springfield;;;\r\nEND:VCARD',
      'mailto:sales@example.com?cc=a%40example.com&subject=Hello%20there&body=Line%201%0D%0ALine%202',
      'SMSTO:+15551234567:Reply YES to confirm',
      'geo:48.858370,2.294481',
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Scanlink//EN\r\nBEGIN:VEVENT\r\nUID:evt_123@scanlink\r\nDTSTAMP:20261122T120000Z\r\nDTSTART:20261201T180000Z\r\nDTEND:20261201T200000Z\r\nSUMMARY:Launch party\r\nLOCATION:Berlin\r\nEND:VEVENT\r\nEND:VCALENDAR',
      'Grüße aus Köln — 東京タワー 🗼 Ελληνικά',
      '0123456789012345678901234567890123456789',
      'HELLO WORLD 123 $%*+-./:',
      'x'.repeat(1200),
    ];
    const design = parseDesign({ shapes: { body: 'rounded' } });
    for (const payload of payloads) await expectScans(payload, design, Math.max(400, minSize(payload, design)));
  });
});

describe('RenderingService.renderPng sizes', () => {
  it.each([99, 4001, 0, 250.5, Number.NaN])('refuses size %p with 400 on size', async (size) => {
    await expect(rendering.renderPng(SHORT, parseDesign({}), null, size)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      extras: { field: 'size' },
    });
  });

  it('refuses a size that leaves fewer than 2.5 px per module, saying the smallest that works', async () => {
    const payload = 'y'.repeat(600); // version 19 at M: 93 modules + 8 quiet = 101
    const design = parseDesign({});
    expect(imageModules(encodeMatrix(payload, 'M'))).toBe(101);
    const err = await rendering.renderPng(payload, design, null, 250).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException).extras.field).toBe('size');
    expect((err as ApiException).message).toMatch(/2\.47 px per module.*use size 253 or more/);
    const png = await rendering.renderPng(payload, design, null, 253);
    expect((await decodeBoth(png)).zxing).toBe(payload);
  });

  it('asks round eye frames for 3 px per module', async () => {
    const payload = 'https://example.com/some/path?x=1'; // version 3: 37 modules with the quiet zone, 2.7 px at 100
    const design = parseDesign({ shapes: { eye_frame: 'circle' } });
    await expect(rendering.renderPng(payload, design, null, 100)).rejects.toMatchObject({ extras: { field: 'size' } });
    await expect(rendering.renderPng(payload, parseDesign({}), null, 100)).resolves.toBeInstanceOf(Buffer);
    await expectScans(payload, design, 111);
  });
});

describe('RenderingService.assertFits', () => {
  it('refuses a payload over the capacity at the chosen error correction with payload_too_large', () => {
    const payload = 'a'.repeat(2000); // fits at L (2953 bytes), not at H (1273)
    expect(() => rendering.assertFits(payload, parseDesign({ error_correction: 'L' }))).not.toThrow();
    let err: unknown;
    try {
      rendering.assertFits(payload, parseDesign({ error_correction: 'H' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiException);
    expect(err).toMatchObject({ status: 400, code: 'payload_too_large' });
    expect((err as Error).message).toMatch(/too long for a QR code at error correction H/);
    expect(() => rendering.assertFits('b'.repeat(3000), parseDesign({ error_correction: 'L' }))).toThrow(/too long/);
  });

  it('translates the same error in renderSvg and renderPng', async () => {
    await expect(rendering.renderSvg('c'.repeat(3000), parseDesign({}), null)).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(rendering.renderPng('c'.repeat(3000), parseDesign({}), null, 1000)).rejects.toMatchObject({ code: 'payload_too_large' });
  });
});

describe('RenderingService SVG', () => {
  it('renders a self-contained SVG with the quiet zone and stores it under its content hash', async () => {
    const design = parseDesign({ shapes: { body: 'dots' }, gradient: { start: '#000000', end: '#123456', type: 'radial' } });
    const svg = await rendering.renderSvg(SHORT, design, null);
    const modules = imageModules(encodeMatrix(SHORT, 'M'));
    expect(svg).toMatch(new RegExp(`^<svg [^>]*viewBox="0 0 ${modules} ${modules}" width="1000" height="1000"`));
    expect(svg).toContain('<radialGradient');
    expect(svg).not.toMatch(/<script|javascript:|https?:\/\/(?!www\.w3\.org)/i);
    const key = await images.storeSvg(svg);
    expect(key).toMatch(/^[0-9a-f]{32}\.svg$/);
    expect(await images.storeSvg(svg)).toBe(key);
    expect(images.url(key)).toBe(`http://img.test/images/${key}`);
    // The stored SVG itself scans once rasterized.
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    expect(await decodeBoth(png)).toEqual({ zxing: SHORT, qr: SHORT });
    await images.delete(key);
    await images.delete(key); // idempotent
  });

  it('embeds the logo as a PNG data URI no wider than the documented share of the symbol', async () => {
    const design = parseDesign({ logo: { url: 'https://cdn.example/l.png' } });
    const svg = await rendering.renderSvg(MEDIUM, design, logo);
    const m = /<image x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*xlink:href="data:image\/png;base64,/.exec(svg);
    expect(m).not.toBeNull();
    const symbol = encodeMatrix(MEDIUM, 'H').size;
    expect(Number(m![3]) / symbol).toBeCloseTo(LOGO_WIDTH_FRACTION.H, 2);
    expect(Number(m![3]) / symbol).toBeLessThanOrEqual(0.3);
    // Without a stored logo (or with the logo removed from the design) nothing is embedded.
    expect(await rendering.renderSvg(MEDIUM, parseDesign({}), logo)).not.toContain('<image');
  });
});
