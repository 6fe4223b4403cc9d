import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ApiException } from '../../common/errors/api.exception';
import { pngSize } from '../rendering/logo-image';
import { LOGO_MAX_PX, normalizeLogo, sniffImageType } from './logo';

const svg = (body: string, attrs = 'width="64" height="32"') => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${body}</svg>`);

describe('sniffImageType', () => {
  it('recognizes PNG, JPEG, WebP and SVG from their bytes', async () => {
    const img = sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } });
    expect(sniffImageType(await img.clone().png().toBuffer())).toBe('png');
    expect(sniffImageType(await img.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffImageType(await img.clone().webp().toBuffer())).toBe('webp');
    expect(sniffImageType(svg('<rect width="1" height="1"/>'))).toBe('svg');
    expect(sniffImageType(Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- logo -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg viewBox="0 0 1 1"></svg>'))).toBe('svg');
  });

  it('refuses anything else, whatever its name or Content-Type would claim', async () => {
    expect(sniffImageType(Buffer.from('<html><body>not a logo</body></html>'))).toBeNull();
    expect(sniffImageType(Buffer.from('GIF89a\x01\x00\x01\x00'))).toBeNull();
    expect(sniffImageType(Buffer.from('%PDF-1.7'))).toBeNull();
    expect(sniffImageType(Buffer.from('{"svg": true}'))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
    expect(sniffImageType(await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).gif().toBuffer())).toBeNull();
  });
});

describe('normalizeLogo', () => {
  it('turns every accepted type into a PNG of at most 512 px, keeping the aspect ratio', async () => {
    const big = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#aa0000' } }).jpeg().toBuffer();
    const out = await normalizeLogo(big);
    expect(sniffImageType(out)).toBe('png');
    expect(pngSize(out)).toEqual({ width: LOGO_MAX_PX, height: LOGO_MAX_PX / 2 });
    const small = await sharp({ create: { width: 40, height: 40, channels: 4, background: '#00aa0080' } }).webp().toBuffer();
    expect(pngSize(await normalizeLogo(small))).toEqual({ width: 40, height: 40 });
  });

  it('rasterizes an SVG logo to PNG at a useful size', async () => {
    const out = await normalizeLogo(svg('<rect width="64" height="32" fill="#0000ff"/>'));
    expect(sniffImageType(out)).toBe('png');
    expect(pngSize(out)).toEqual({ width: LOGO_MAX_PX, height: LOGO_MAX_PX / 2 });
    const { data } = await sharp(out).extract({ left: 10, top: 10, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0, 0, 255]);
  });

  it('accepts SVGs that declare a huge or a very thin size', async () => {
    const declared = (w: number, h: number) =>
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 100 100"><rect width="100" height="100" fill="#0000ff"/></svg>`);
    expect(pngSize(await normalizeLogo(declared(20000, 20000)))).toEqual({ width: LOGO_MAX_PX, height: LOGO_MAX_PX });
    const thin = pngSize(await normalizeLogo(declared(1, 4000)));
    expect(thin.height).toBe(LOGO_MAX_PX);
    expect(thin.width).toBeGreaterThanOrEqual(1);
  });

  it('drops scripts: an SVG with <script> and event handlers becomes plain pixels', async () => {
    const evil = svg(
      '<script>alert(document.cookie)</script><rect width="64" height="32" fill="#00ff00" onload="alert(1)"/>' +
        '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(2)"/></foreignObject>',
    );
    const out = await normalizeLogo(evil);
    expect(sniffImageType(out)).toBe('png');
    expect(out.includes(Buffer.from('alert'))).toBe(false);
    expect(out.includes(Buffer.from('<script'))).toBe(false);
  });

  it('loads no file an SVG logo points at (file: URLs, absolute and relative paths)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanlink-logo-'));
    try {
      const secret = join(dir, 'secret.png');
      writeFileSync(secret, await sharp({ create: { width: 100, height: 100, channels: 3, background: '#000000' } }).png().toBuffer());
      for (const href of [`file://${secret}`, secret, 'secret.png']) {
        const out = await normalizeLogo(
          svg(`<rect width="100" height="100" fill="#ffffff"/><image xlink:href="${href}" width="100" height="100"/>`, 'xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"'),
        );
        const { data } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
        expect({ href, darkest: data.reduce((m, v) => Math.min(m, v), 255) }).toEqual({ href, darkest: 255 });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses SVG entity declarations (expansion bombs, external entities)', async () => {
    const bomb = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>',
    );
    await expect(normalizeLogo(bomb)).rejects.toMatchObject({ extras: { field: 'design.logo.url' }, message: expect.stringMatching(/entity/) });
  });

  it('refuses bytes that are not an accepted image, and a truncated image, on design.logo.url', async () => {
    const html = normalizeLogo(Buffer.from('<!doctype html><title>x</title>'));
    await expect(html).rejects.toBeInstanceOf(ApiException);
    await expect(normalizeLogo(Buffer.from('<!doctype html>'))).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      extras: { field: 'design.logo.url' },
      message: 'The logo is not a PNG, JPEG, WebP or SVG image',
    });
    const png = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#000' } }).png().toBuffer();
    await expect(normalizeLogo(png.subarray(0, 40))).rejects.toMatchObject({
      extras: { field: 'design.logo.url' },
      message: expect.stringMatching(/could not be read as a PNG image/),
    });
  });
});
