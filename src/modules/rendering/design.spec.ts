import { ApiException } from '../../common/errors/api.exception';
import { DEFAULT_DESIGN, Design, parseDesign, presentDesign, storedDesign } from './design';

function refusal(input: unknown, opts?: Parameters<typeof parseDesign>[1]): { field?: string; message: string; code: string } {
  try {
    parseDesign(input, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    const e = err as ApiException;
    expect(e.status).toBe(400);
    return { field: e.extras.field, message: e.message, code: e.code };
  }
  throw new Error('expected a refusal');
}

describe('parseDesign', () => {
  it('gives the documented defaults when no design is sent', () => {
    expect(parseDesign(undefined)).toEqual(DEFAULT_DESIGN);
    expect(parseDesign({})).toEqual({
      error_correction: 'M',
      colors: { foreground: '#000000', background: '#ffffff' },
      gradient: null,
      shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' },
      eye_colors: null,
      logo: null,
      transparent_background: false,
      frame: null,
    });
  });

  it('accepts every documented value and normalizes colours to #rrggbb', () => {
    const d = parseDesign({
      error_correction: 'q',
      colors: { foreground: '#123', background: '#FAFAFA' },
      gradient: { start: '#102030', end: '#300', type: 'radial' },
      shapes: { body: 'extra-rounded', eye_frame: 'circle', eye_ball: 'rounded' },
      eye_colors: { frame: '#001100', ball: '#220000' },
      logo: { url: 'https://cdn.example.com/logo.png', clear_background: false },
      transparent_background: false,
    });
    expect(d).toEqual({
      error_correction: 'Q',
      colors: { foreground: '#112233', background: '#fafafa' },
      gradient: { start: '#102030', end: '#330000', type: 'radial' },
      shapes: { body: 'extra-rounded', eye_frame: 'circle', eye_ball: 'rounded' },
      eye_colors: { frame: '#001100', ball: '#220000' },
      logo: { url: 'https://cdn.example.com/logo.png', clear_background: false },
      transparent_background: false,
      frame: null,
    });
  });

  it.each([
    [{ shapes: { body: 'hearts' } }, 'design.shapes.body', /square, dots, rounded, extra-rounded, classy/],
    [{ shapes: { eye_frame: 'dots' } }, 'design.shapes.eye_frame', /square, rounded, circle/],
    [{ shapes: { eye_ball: 'star' } }, 'design.shapes.eye_ball', /square, rounded, circle/],
    [{ error_correction: 'X' }, 'design.error_correction', /L, M, Q, H/],
    [{ error_correction: 2 }, 'design.error_correction', /L, M, Q, H/],
    [{ colors: { foreground: 'black' } }, 'design.colors.foreground', /#RGB or #RRGGBB/],
    [{ colors: { background: '#12345' } }, 'design.colors.background', /#RGB or #RRGGBB/],
    [{ colors: { foreground: '#00000000' } }, 'design.colors.foreground', /hex color/],
    [{ colors: { foreground: ' #000000' } }, 'design.colors.foreground', /#RGB or #RRGGBB/],
    [{ colors: { background: '#fff\n' } }, 'design.colors.background', /#RGB or #RRGGBB/],
    [{ gradient: { start: '#000', end: '#111', type: 'conic' } }, 'design.gradient.type', /linear, radial/],
    [{ gradient: { start: '#000' } }, 'design.gradient.end', /required/],
    [{ gradient: { end: '#000' } }, 'design.gradient.start', /required/],
    [{ gradient: { start: 'red', end: '#000' } }, 'design.gradient.start', /hex color/],
    [{ eye_colors: { frame: 'rgb(0,0,0)' } }, 'design.eye_colors.frame', /hex color/],
    [{ eye_colors: { ball: '#ggg' } }, 'design.eye_colors.ball', /hex color/],
    [{ logo: { clear_background: true } }, 'design.logo.url', /required/],
    [{ logo: { url: 'ftp://example.com/logo.png' } }, 'design.logo.url', /http or https/],
    [{ logo: { url: 'not a url' } }, 'design.logo.url', /http or https/],
    [{ logo: { url: 'https://user:pw@example.com/l.png' } }, 'design.logo.url', /credentials/],
    [{ logo: { url: 'https://example.com/l.png', clear_background: 'yes' } }, 'design.logo.clear_background', /boolean/],
    [{ transparent_background: 'true' }, 'design.transparent_background', /boolean/],
    [{ colors: 'black' }, 'design.colors', /object/],
    [{ shapes: ['dots'] }, 'design.shapes', /object/],
    ['dots', 'design', /object/],
  ])('refuses %j naming %s', (input, field, message) => {
    const r = refusal(input);
    expect(r.code).toBe('invalid_request');
    expect(r.field).toBe(field);
    expect(r.message).toMatch(message);
  });

  it.each([
    [{ border: 2 }, 'design.border'],
    [{ colors: { foreground: '#000', accent: '#f00' } }, 'design.colors.accent'],
    [{ shapes: { body: 'dots', corners: 'round' } }, 'design.shapes.corners'],
    [{ logo: { url: 'https://example.com/l.png', size: 0.3 } }, 'design.logo.size'],
    [{ gradient: { start: '#000', end: '#111', angle: 45 } }, 'design.gradient.angle'],
    [{ eye_colors: { frame: '#000', inner: '#000' } }, 'design.eye_colors.inner'],
  ])('refuses the unknown field in %j', (input, field) => {
    const r = refusal(input);
    expect(r.field).toBe(field);
    expect(r.message).toContain(`Unknown field '${field}'`);
  });

  describe('contrast', () => {
    it('refuses a foreground/background pair below 3:1, naming design.colors', () => {
      const r = refusal({ colors: { foreground: '#aaaaaa', background: '#ffffff' } });
      expect(r.field).toBe('design.colors');
      expect(r.message).toMatch(/contrast ratio of 2\.32:1 against the background #ffffff; at least 3:1/);
      // 2.996:1 is below 3:1 and is not printed as 3.00:1.
      expect(refusal({ colors: { foreground: '#959595', background: '#ffffff' } }).message).toContain('contrast ratio of 2.99:1');
    });

    it('accepts a pair at 3:1 or more and refuses one just below', () => {
      expect(parseDesign({ colors: { foreground: '#767676', background: '#ffffff' } }).colors.foreground).toBe('#767676');
      expect(parseDesign({ colors: { foreground: '#949494', background: '#ffffff' } }).colors.foreground).toBe('#949494'); // 3.03:1
      expect(refusal({ colors: { foreground: '#959595', background: '#ffffff' } }).field).toBe('design.colors'); // 2.98:1
      expect(refusal({ colors: { foreground: '#ffff00', background: '#ffffff' } }).message).toMatch(/1\.07:1/);
    });

    it('refuses light-on-dark codes, which many phones do not read', () => {
      const r = refusal({ colors: { foreground: '#ffffff', background: '#000000' } });
      expect(r.field).toBe('design.colors');
      expect(r.message).toMatch(/darker/);
    });

    it('judges a transparent background against white and ignores the background colour', () => {
      // Dark background colour, but transparent: judged on white, so a dark foreground is fine...
      const d = parseDesign({ colors: { foreground: '#000000', background: '#101010' }, transparent_background: true });
      expect(d.transparent_background).toBe(true);
      // ...and a light foreground is refused even though it contrasts with the (ignored) dark background.
      const r = refusal({ colors: { foreground: '#eeeeee', background: '#000000' }, transparent_background: true });
      expect(r.field).toBe('design.colors');
      expect(r.message).toMatch(/white \(the background is transparent\)/);
    });

    it('holds gradient ends and eye colours to 3:1 against the background too', () => {
      expect(refusal({ gradient: { start: '#000000', end: '#aaaaaa' } }).field).toBe('design.gradient.end');
      expect(refusal({ gradient: { start: '#dddddd', end: '#000000' } }).field).toBe('design.gradient.start');
      expect(refusal({ eye_colors: { frame: '#cccccc', ball: '#000000' } }).field).toBe('design.eye_colors.frame');
      expect(refusal({ eye_colors: { frame: '#000000', ball: '#ffee00' } }).field).toBe('design.eye_colors.ball');
      expect(refusal({ colors: { background: '#333333' } }).field).toBe('design.colors');
    });
  });

  describe('error correction', () => {
    it('defaults to H when a logo is set and the caller did not choose', () => {
      expect(parseDesign({ logo: { url: 'https://example.com/l.png' } }).error_correction).toBe('H');
      expect(parseDesign({ logo: { url: 'https://example.com/l.png' }, error_correction: 'Q' }).error_correction).toBe('Q');
    });

    it('clears the logo background by default', () => {
      expect(parseDesign({ logo: { url: 'https://example.com/l.png' } }).logo).toEqual({
        url: 'https://example.com/l.png',
        clear_background: true,
      });
    });
  });

  describe('merging over a stored design (PATCH)', () => {
    const base: Design = parseDesign({
      colors: { foreground: '#112233', background: '#ffffff' },
      gradient: { start: '#000000', end: '#220000', type: 'radial' },
      shapes: { body: 'dots', eye_frame: 'circle', eye_ball: 'circle' },
      eye_colors: { frame: '#003300', ball: '#000033' },
      logo: { url: 'https://example.com/l.png', clear_background: false },
      error_correction: 'Q',
    });

    it('keeps everything not named', () => {
      expect(parseDesign({}, { base })).toEqual(base);
      expect(parseDesign(undefined, { base })).toEqual(base);
    });

    it('merges nested objects field by field', () => {
      const d = parseDesign({ colors: { background: '#fefefe' }, shapes: { body: 'classy' }, gradient: { type: 'linear' } }, { base });
      expect(d.colors).toEqual({ foreground: '#112233', background: '#fefefe' });
      expect(d.shapes).toEqual({ body: 'classy', eye_frame: 'circle', eye_ball: 'circle' });
      expect(d.gradient).toEqual({ start: '#000000', end: '#220000', type: 'linear' });
      expect(d.logo).toEqual(base.logo);
      expect(d.error_correction).toBe('Q');
      expect(parseDesign({ logo: { clear_background: true } }, { base }).logo).toEqual({ url: 'https://example.com/l.png', clear_background: true });
      expect(parseDesign({ eye_colors: { ball: '#111111' } }, { base }).eye_colors).toEqual({ frame: '#003300', ball: '#111111' });
    });

    it('removes optional parts set to null', () => {
      const d = parseDesign({ gradient: null, eye_colors: null, logo: null }, { base });
      expect(d.gradient).toBeNull();
      expect(d.eye_colors).toBeNull();
      expect(d.logo).toBeNull();
      expect(d.error_correction).toBe('Q');
    });

    it('raises error correction to H when a logo is added to a design without one', () => {
      const plain = parseDesign({ error_correction: 'L' });
      expect(parseDesign({ logo: { url: 'https://example.com/l.png' } }, { base: plain }).error_correction).toBe('H');
    });

    it('checks contrast on the merged result', () => {
      const r = refusal({ colors: { background: '#222222' } }, { base });
      expect(r.field).toBe('design.colors');
    });

    it('names fields under a custom root', () => {
      expect(refusal({ shapes: { body: 'x' } }, { field: 'items[3].design' }).field).toBe('items[3].design.shapes.body');
    });
  });
});

describe('presentDesign', () => {
  it('replaces the logo by has_logo and never shows its URL', () => {
    const d = parseDesign({ logo: { url: 'https://example.com/secret-logo.png' } });
    const out = presentDesign(d, true);
    expect(out).toEqual({
      error_correction: 'H',
      colors: { foreground: '#000000', background: '#ffffff' },
      gradient: null,
      shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' },
      eye_colors: null,
      has_logo: true,
      transparent_background: false,
      frame: { style: 'none', text: null, text_color: '#ffffff', color: '#000000' },
    });
    expect(JSON.stringify(out)).not.toContain('secret-logo');
    expect(presentDesign(parseDesign({}), false).has_logo).toBe(false);
  });
});

describe('storedDesign', () => {
  it('reads a stored design back, defaulting anything missing', () => {
    expect(storedDesign({})).toEqual(DEFAULT_DESIGN);
    expect(storedDesign(null)).toEqual(DEFAULT_DESIGN);
    const d = parseDesign({ shapes: { body: 'dots' } });
    expect(storedDesign(JSON.parse(JSON.stringify(d)))).toEqual(d);
  });
});

describe('design.frame', () => {
  it('stores a frame with its text and shows its colours resolved (frame: foreground, text: background)', () => {
    const d = parseDesign({ colors: { foreground: '#1a237e' }, frame: { style: 'banner_bottom', text: 'Scan for the menu' } });
    expect(d.frame).toEqual({ style: 'banner_bottom', text: 'Scan for the menu', text_color: null, color: null });
    expect(presentDesign(d, false).frame).toEqual({ style: 'banner_bottom', text: 'Scan for the menu', text_color: '#ffffff', color: '#1a237e' });
    expect(storedDesign(JSON.parse(JSON.stringify(d)))).toEqual(d);
  });

  it('defaults the text of a styled frame to "Scan me" and merges field by field on PATCH; null removes it', () => {
    const d = parseDesign({ frame: { style: 'box' } });
    expect(d.frame).toMatchObject({ style: 'box', text: 'Scan me' });
    const patched = parseDesign({ frame: { color: '#004d40' } }, { base: d });
    expect(patched.frame).toEqual({ style: 'box', text: 'Scan me', text_color: null, color: '#004d40' });
    expect(parseDesign({ frame: null }, { base: patched }).frame).toBeNull();
  });

  it('accepts 24 characters, accents, Greek and Cyrillic', () => {
    expect(parseDesign({ frame: { style: 'box', text: 'x'.repeat(24) } }).frame?.text).toHaveLength(24);
    expect(parseDesign({ frame: { style: 'box', text: 'Scannez-moi ÄÖÜ Ωμέγα Ж' } }).frame?.text).toBe('Scannez-moi ÄÖÜ Ωμέγα Ж');
  });

  it.each([
    [{ style: 'circle' }, 'design.frame.style', /none, box, banner_bottom, banner_top, rounded_box/],
    [{ style: 'box', text: 'x'.repeat(25) }, 'design.frame.text', /1 to 24 characters/],
    [{ style: 'box', text: '' }, 'design.frame.text', /1 to 24 characters/],
    [{ style: 'box', text: 'Scan\nme' }, 'design.frame.text', /control characters/],
    [{ style: 'box', text: 'Scan\u0007' }, 'design.frame.text', /control characters/],
    [{ style: 'box', text: '   ' }, 'design.frame.text', /blank/],
    [{ style: 'box', text: 42 }, 'design.frame.text', /string/],
    [{ style: 'box', text: '扫码' }, 'design.frame.text', /cannot draw/],
    [{ style: 'box', color: 'navy' }, 'design.frame.color', /hex color/],
    [{ style: 'box', text_color: '#12' }, 'design.frame.text_color', /hex color/],
    [{ style: 'box', border: 2 }, 'design.frame.border', /Unknown field/],
    [{ style: 'box', color: '#eeeeee' }, 'design.frame.color', /contrast ratio of 1\.\d\d:1/],
    [{ style: 'banner_top', text_color: '#111111' }, 'design.frame.text_color', /contrast ratio/],
    [{ style: 'box', text_color: '#777777', color: '#888888' }, 'design.frame.color', /contrast ratio/],
  ])('refuses frame %j naming %s', (frame, field, message) => {
    expect(() => parseDesign({ frame })).toThrow(expect.objectContaining({ code: 'invalid_request', extras: expect.objectContaining({ field }), message: expect.stringMatching(message) }));
  });

  it('does not check the colours of a frame whose style is none: style none removes the frame, text and colours too', () => {
    expect(parseDesign({ frame: { style: 'none', color: '#ffffff' } }).frame).toBeNull();
    expect(parseDesign({ frame: { text: 'Hi there' } }).frame).toBeNull();
    const boxed = parseDesign({ frame: { style: 'box', text: 'Hello' } });
    const removed = parseDesign({ frame: { style: 'none' } }, { base: boxed });
    expect(removed.frame).toBeNull();
    expect(presentDesign(removed, false).frame).toMatchObject({ style: 'none', text: null });
    expect(parseDesign({ frame: { style: 'box' } }, { base: removed }).frame).toMatchObject({ style: 'box', text: 'Scan me' });
  });

  it.each(['\u200b', 'Scan\u00adme', '\ufeff', 'Scan \u202eem'])('refuses frame text %j holding invisible formatting characters', (text) => {
    expect(() => parseDesign({ frame: { style: 'box', text } })).toThrow(expect.objectContaining({ extras: expect.objectContaining({ field: 'design.frame.text' }) }));
  });
});

describe('design.logo data: URLs', () => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  it('accepts PNG, JPEG, WebP and SVG data: URLs, base64 or percent-encoded', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']) {
      const url = `data:${type};base64,${png.toString('base64')}`;
      expect(parseDesign({ logo: { url } }).logo?.url).toBe(url);
    }
    expect(parseDesign({ logo: { url: 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E' } }).logo?.url).toMatch(/^data:image\/svg\+xml,/);
  });

  it.each([
    ['data:text/html;base64,PGgxPg==', /PNG, JPEG, WebP or SVG/],
    ['data:,hello', /PNG, JPEG, WebP or SVG/],
    ['data:image/gif;base64,R0lGODlh', /PNG, JPEG, WebP or SVG/],
    ['data:image/png;base64,###', /not valid base64/],
    ['data:image/png;base64', /not a valid data: URL/],
    [`data:image/png;base64,${Buffer.alloc(1024 * 1024 + 1).toString('base64')}`, /larger than 1 MB/],
  ])('refuses a bad data: URL (%#)', (url, message) => {
    expect(() => parseDesign({ logo: { url } })).toThrow(
      expect.objectContaining({ extras: expect.objectContaining({ field: 'design.logo.url' }), message: expect.stringMatching(message) }),
    );
  });

  it('accepts a logo of exactly 1 MB', () => {
    expect(parseDesign({ logo: { url: `data:image/png;base64,${Buffer.alloc(1024 * 1024).toString('base64')}` } }).logo).not.toBeNull();
  });
});
