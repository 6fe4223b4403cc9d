import { ApiException } from '../../common/errors/api.exception';
import { contrastRatio, normalizeHexColor, relativeLuminance } from './color';
import { DEFAULT_FRAME_TEXT, type Frame, FRAME_STYLES, FRAME_TEXT_MAX, missingGlyphs } from './frame';

/** The normalized design stored with every code (docs/design.md). */
export type ErrorCorrection = 'L' | 'M' | 'Q' | 'H';
export type BodyShape = 'square' | 'dots' | 'rounded' | 'extra-rounded' | 'classy';
export type EyeFrameShape = 'square' | 'rounded' | 'circle';
export type EyeBallShape = 'square' | 'rounded' | 'circle';
export type GradientType = 'linear' | 'radial';

export interface Design {
  error_correction: ErrorCorrection;
  colors: { foreground: string; background: string };
  gradient: { start: string; end: string; type: GradientType } | null;
  shapes: { body: BodyShape; eye_frame: EyeFrameShape; eye_ball: EyeBallShape };
  eye_colors: { frame: string; ball: string } | null;
  logo: { url: string; clear_background: boolean } | null;
  transparent_background: boolean;
  /** null: no frame (style `none`) */
  frame: Frame | null;
}

export const ERROR_CORRECTIONS: readonly ErrorCorrection[] = ['L', 'M', 'Q', 'H'];
export const BODY_SHAPES: readonly BodyShape[] = ['square', 'dots', 'rounded', 'extra-rounded', 'classy'];
export const EYE_FRAME_SHAPES: readonly EyeFrameShape[] = ['square', 'rounded', 'circle'];
export const EYE_BALL_SHAPES: readonly EyeBallShape[] = ['square', 'rounded', 'circle'];
export const GRADIENT_TYPES: readonly GradientType[] = ['linear', 'radial'];

/** Scanners need the dark parts at least this much darker than the light ones (WCAG contrast ratio). */
export const MIN_CONTRAST = 3;
const MAX_LOGO_URL_LENGTH = 2048;

export const DEFAULT_DESIGN: Design = Object.freeze({
  error_correction: 'M',
  colors: { foreground: '#000000', background: '#ffffff' },
  gradient: null,
  shapes: { body: 'square', eye_frame: 'square', eye_ball: 'square' },
  eye_colors: null,
  logo: null,
  transparent_background: false,
  frame: null,
}) as Design;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(field: string, message: string): ApiException {
  return ApiException.invalid(field, message);
}

function expectObject(value: unknown, field: string, allowed: readonly string[]): Obj {
  if (!isObject(value)) throw invalid(field, `${field} must be an object`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalid(`${field}.${key}`, `Unknown field '${field}.${key}' (allowed: ${allowed.join(', ')})`);
    }
  }
  return value;
}

function parseColor(value: unknown, field: string): string {
  const color = typeof value === 'string' ? normalizeHexColor(value) : null;
  if (!color) throw invalid(field, `${field} must be a hex color, #RGB or #RRGGBB`);
  return color;
}

function parseEnum<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw invalid(field, `${field} must be one of: ${allowed.join(', ')}`);
  }
  return value as T;
}

function parseBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalid(field, `${field} must be a boolean`);
  return value;
}

/** `data:` logos: PNG, JPEG, WebP or SVG of at most 1 MB decoded (base64 makes that about 1.4 M characters). */
const DATA_LOGO_TYPES = ['image/png', 'image/jpeg', 'image/jpg', 'image/webp', 'image/svg+xml'];
const DATA_LOGO_MAX_BYTES = 1024 * 1024;

function parseLogoUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(field, `${field} must be an http or https URL, or a data: URL of an image`);
  const raw = value.trim();
  if (/^data:/i.test(raw)) return parseDataLogoUrl(raw, field);
  if (raw.length > MAX_LOGO_URL_LENGTH) throw invalid(field, `${field} must be at most ${MAX_LOGO_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(field, `${field} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, `${field} must be an http or https URL`);
  if (url.username || url.password) throw invalid(field, `${field} must not contain credentials`);
  return url.toString();
}

/** A `data:` URL's form, declared type and decoded size (the bytes themselves are sniffed when the logo is stored). */
function parseDataLogoUrl(raw: string, field: string): string {
  const m = /^data:([^,;]*)((?:;[^,;]*)*?)(;base64)?,(.*)$/is.exec(raw);
  if (!m) throw invalid(field, `${field} is not a valid data: URL`);
  const type = m[1].trim().toLowerCase();
  if (!DATA_LOGO_TYPES.includes(type)) {
    throw invalid(field, `The logo data: URL must be a PNG, JPEG, WebP or SVG image (image/png, image/jpeg, image/webp, image/svg+xml), not '${type || 'text/plain'}'`);
  }
  const data = m[4];
  let bytes: number;
  if (m[3]) {
    const b64 = data.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw invalid(field, 'The logo data: URL is not valid base64');
    bytes = Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  } else {
    bytes = Buffer.byteLength(data.replace(/%[0-9a-f]{2}/gi, '_'));
  }
  if (bytes > DATA_LOGO_MAX_BYTES) throw invalid(field, 'The logo is larger than 1 MB');
  if (bytes === 0) throw invalid(field, 'The logo data: URL is empty');
  return `data:${type}${m[3] ? ';base64' : ''},${data}`;
}

/**
 * Validates a request's `design` object and returns the normalized design.
 * - Without `base` (creation), omitted fields take the defaults.
 * - With `base` (PATCH), the input is merged over `base`; nested objects merge field by field, and `null` removes an
 *   optional part (`gradient`, `eye_colors`, `logo`).
 * - `error_correction` defaults to M, or H when a logo is set (or newly added) and the caller did not choose one.
 * Throws ApiException `invalid_request` naming the offending field (`design.shapes.body`, `design.colors`, …).
 */
export function parseDesign(input: unknown, opts: { base?: Design; field?: string; baseNamesErrorCorrection?: boolean } = {}): Design {
  const root = opts.field ?? 'design';
  const base = opts.base ?? DEFAULT_DESIGN;
  if (input === undefined || input === null) return validateContrast(cloneDesign(base), root);
  const obj = expectObject(input, root, [
    'error_correction',
    'colors',
    'gradient',
    'shapes',
    'eye_colors',
    'logo',
    'transparent_background',
    'frame',
  ]);

  const colors = { ...base.colors };
  if (obj.colors !== undefined) {
    const c = expectObject(obj.colors, `${root}.colors`, ['foreground', 'background']);
    if (c.foreground !== undefined) colors.foreground = parseColor(c.foreground, `${root}.colors.foreground`);
    if (c.background !== undefined) colors.background = parseColor(c.background, `${root}.colors.background`);
  }

  let gradient = base.gradient ? { ...base.gradient } : null;
  if (obj.gradient === null) gradient = null;
  else if (obj.gradient !== undefined) {
    const field = `${root}.gradient`;
    const g = expectObject(obj.gradient, field, ['start', 'end', 'type']);
    const start = g.start !== undefined ? parseColor(g.start, `${field}.start`) : gradient?.start;
    const end = g.end !== undefined ? parseColor(g.end, `${field}.end`) : gradient?.end;
    if (!start) throw invalid(`${field}.start`, `${field}.start is required`);
    if (!end) throw invalid(`${field}.end`, `${field}.end is required`);
    const type = g.type !== undefined ? parseEnum(g.type, `${field}.type`, GRADIENT_TYPES) : (gradient?.type ?? 'linear');
    gradient = { start, end, type };
  }

  const shapes = { ...base.shapes };
  if (obj.shapes !== undefined) {
    const field = `${root}.shapes`;
    const s = expectObject(obj.shapes, field, ['body', 'eye_frame', 'eye_ball']);
    if (s.body !== undefined) shapes.body = parseEnum(s.body, `${field}.body`, BODY_SHAPES);
    if (s.eye_frame !== undefined) shapes.eye_frame = parseEnum(s.eye_frame, `${field}.eye_frame`, EYE_FRAME_SHAPES);
    if (s.eye_ball !== undefined) shapes.eye_ball = parseEnum(s.eye_ball, `${field}.eye_ball`, EYE_BALL_SHAPES);
  }

  let eyeColors = base.eye_colors ? { ...base.eye_colors } : null;
  if (obj.eye_colors === null) eyeColors = null;
  else if (obj.eye_colors !== undefined) {
    const field = `${root}.eye_colors`;
    const e = expectObject(obj.eye_colors, field, ['frame', 'ball']);
    // A missing half follows the foreground, so `{frame}` alone colours only the frames.
    const frame = e.frame !== undefined ? parseColor(e.frame, `${field}.frame`) : (eyeColors?.frame ?? colors.foreground);
    const ball = e.ball !== undefined ? parseColor(e.ball, `${field}.ball`) : (eyeColors?.ball ?? colors.foreground);
    eyeColors = { frame, ball };
  }

  let logo = base.logo ? { ...base.logo } : null;
  if (obj.logo === null) logo = null;
  else if (obj.logo !== undefined) {
    const field = `${root}.logo`;
    const l = expectObject(obj.logo, field, ['url', 'clear_background']);
    const url = l.url !== undefined ? parseLogoUrl(l.url, `${field}.url`) : logo?.url;
    if (!url) throw invalid(`${field}.url`, `${field}.url is required`);
    const clear =
      l.clear_background !== undefined ? parseBoolean(l.clear_background, `${field}.clear_background`) : (logo?.clear_background ?? true);
    logo = { url, clear_background: clear };
  }

  let transparent = base.transparent_background;
  if (obj.transparent_background !== undefined) {
    transparent = parseBoolean(obj.transparent_background, `${root}.transparent_background`);
  }

  let frame = base.frame ? { ...base.frame } : null;
  if (obj.frame === null) frame = null;
  else if (obj.frame !== undefined) frame = parseFrame(obj.frame, `${root}.frame`, frame);
  // `style: "none"` removes the frame, its text and colours with it (a later style starts from the defaults).
  if (frame?.style === 'none') frame = null;

  let errorCorrection: ErrorCorrection;
  if (obj.error_correction !== undefined) {
    const raw = typeof obj.error_correction === 'string' ? obj.error_correction.toUpperCase() : obj.error_correction;
    errorCorrection = parseEnum(raw, `${root}.error_correction`, ERROR_CORRECTIONS);
  } else if (logo && !(opts.base && (opts.base.logo || opts.baseNamesErrorCorrection))) {
    // A logo hides modules: the highest correction level unless the caller chose one (here, or in the template the
    // base comes from).
    errorCorrection = 'H';
  } else {
    errorCorrection = opts.base ? base.error_correction : 'M';
  }

  return validateContrast(
    { error_correction: errorCorrection, colors, gradient, shapes, eye_colors: eyeColors, logo, transparent_background: transparent, frame },
    root,
    isObject(obj.frame) && obj.frame.text_color !== undefined && obj.frame.color === undefined ? 'text_color' : 'color',
  );
}

/** `design.frame`: merged field by field over `base` (PATCH). Text: 1–24 characters, no control characters, each one
 * drawable by the frame font. */
function parseFrame(value: unknown, field: string, base: Frame | null): Frame {
  const f = expectObject(value, field, ['style', 'text', 'text_color', 'color']);
  const frame: Frame = base ? { ...base } : { style: 'none', text: null, text_color: null, color: null };
  if (f.style !== undefined) frame.style = parseEnum(f.style, `${field}.style`, FRAME_STYLES);
  if (f.text === null) frame.text = null;
  else if (f.text !== undefined) {
    const tf = `${field}.text`;
    if (typeof f.text !== 'string') throw invalid(tf, `${tf} must be a string of 1 to ${FRAME_TEXT_MAX} characters`);
    const chars = [...f.text];
    if (chars.length < 1 || chars.length > FRAME_TEXT_MAX) {
      throw invalid(tf, `${tf} must be 1 to ${FRAME_TEXT_MAX} characters long (it has ${chars.length})`);
    }
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(f.text)) throw invalid(tf, `${tf} must not contain control characters or line breaks`);
    if (f.text.trim() === '') throw invalid(tf, `${tf} must not be blank`);
    // Format characters draw nothing or reorder what is drawn (zero-width space, soft hyphen, byte order mark, bidi
    // overrides): a band of them would print empty or read differently from what was typed.
    if (/\p{Cf}/u.test(f.text)) throw invalid(tf, `${tf} must not contain invisible formatting characters (zero-width or bidirectional controls)`);
    const missing = missingGlyphs(f.text);
    if (missing.length) {
      throw invalid(tf, `${tf} has characters the frame font cannot draw: ${missing.slice(0, 5).map((c) => JSON.stringify(c)).join(', ')}`);
    }
    frame.text = f.text;
  }
  if (f.text_color === null) frame.text_color = null;
  else if (f.text_color !== undefined) frame.text_color = parseColor(f.text_color, `${field}.text_color`);
  if (f.color === null) frame.color = null;
  else if (f.color !== undefined) frame.color = parseColor(f.color, `${field}.color`);
  if (frame.style !== 'none' && frame.text === null) frame.text = DEFAULT_FRAME_TEXT;
  return frame;
}

/** The frame's colours with their defaults: the frame in the foreground colour, its text in the background colour. */
export function frameColors(design: Design): { color: string; text_color: string } {
  return { color: design.frame?.color ?? design.colors.foreground, text_color: design.frame?.text_color ?? design.colors.background };
}

/** The colour a scanner sees behind the code: white when the background is transparent (paper, most screens). */
export function effectiveBackground(design: Design): string {
  return design.transparent_background ? '#ffffff' : design.colors.background;
}

/** Every colour that draws dark modules must keep 3:1 against the background, and be the darker of the two
 * (light-on-dark "inverted" codes are not read by many phone scanners). */
function validateContrast(design: Design, root: string, frameField: 'color' | 'text_color' = 'color'): Design {
  const bg = effectiveBackground(design);
  const against = design.transparent_background ? 'white (the background is transparent)' : `the background ${bg}`;
  const check = (color: string, field: string, what: string) => {
    const ratio = contrastRatio(color, bg);
    if (ratio < MIN_CONTRAST) {
      throw invalid(
        field,
        `${what} ${color} has a contrast ratio of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1 against ${against}; at least ${MIN_CONTRAST}:1 is needed for the code to scan`,
      );
    }
    if (!isDarker(color, bg)) {
      throw invalid(field, `${what} ${color} must be darker than ${against}: light-on-dark codes do not scan on many phones`);
    }
  };
  check(design.colors.foreground, `${root}.colors`, 'The foreground');
  if (design.gradient) {
    check(design.gradient.start, `${root}.gradient.start`, 'The gradient start');
    check(design.gradient.end, `${root}.gradient.end`, 'The gradient end');
  }
  if (design.eye_colors) {
    check(design.eye_colors.frame, `${root}.eye_colors.frame`, 'The eye frame colour');
    check(design.eye_colors.ball, `${root}.eye_colors.ball`, 'The eye ball colour');
  }
  if (design.frame && design.frame.style !== 'none') {
    // The call to action must be legible on its frame (WCAG's 3:1 for large text), light on dark or dark on light.
    const { color, text_color } = frameColors(design);
    const ratio = contrastRatio(text_color, color);
    if (ratio < MIN_CONTRAST) {
      throw invalid(
        `${root}.frame.${frameField}`,
        `The frame text colour ${text_color} has a contrast ratio of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1 against the frame colour ${color}; at least ${MIN_CONTRAST}:1 is needed for the text to be read`,
      );
    }
  }
  return design;
}

function isDarker(a: string, b: string): boolean {
  return relativeLuminance(a) < relativeLuminance(b);
}

function cloneDesign(d: Design): Design {
  return {
    error_correction: d.error_correction,
    colors: { ...d.colors },
    gradient: d.gradient ? { ...d.gradient } : null,
    shapes: { ...d.shapes },
    eye_colors: d.eye_colors ? { ...d.eye_colors } : null,
    logo: d.logo ? { ...d.logo } : null,
    transparent_background: d.transparent_background,
    frame: d.frame ? { ...d.frame } : null,
  };
}

/** Reads a design stored in the database (jsonb) back, filling anything missing with the defaults. */
export function storedDesign(value: unknown): Design {
  if (!isObject(value)) return cloneDesign(DEFAULT_DESIGN);
  const v = value as Partial<Design>;
  return {
    error_correction: v.error_correction ?? DEFAULT_DESIGN.error_correction,
    // Rebuilt key by key: jsonb stores object keys in its own order, and a design must compare (and print) the same
    // whatever order it was stored in.
    colors: { foreground: v.colors?.foreground ?? DEFAULT_DESIGN.colors.foreground, background: v.colors?.background ?? DEFAULT_DESIGN.colors.background },
    gradient: v.gradient ? { start: v.gradient.start, end: v.gradient.end, type: v.gradient.type } : null,
    shapes: {
      body: v.shapes?.body ?? DEFAULT_DESIGN.shapes.body,
      eye_frame: v.shapes?.eye_frame ?? DEFAULT_DESIGN.shapes.eye_frame,
      eye_ball: v.shapes?.eye_ball ?? DEFAULT_DESIGN.shapes.eye_ball,
    },
    eye_colors: v.eye_colors ? { frame: v.eye_colors.frame, ball: v.eye_colors.ball } : null,
    logo: v.logo ? { url: v.logo.url, clear_background: v.logo.clear_background } : null,
    transparent_background: v.transparent_background ?? false,
    frame: v.frame ? { style: v.frame.style, text: v.frame.text ?? null, text_color: v.frame.text_color ?? null, color: v.frame.color ?? null } : null,
  };
}

/** The response form: the logo's URL is never echoed, only whether a logo is stored. */
export function presentDesign(design: Design, hasLogo: boolean) {
  return {
    error_correction: design.error_correction,
    colors: { ...design.colors },
    gradient: design.gradient ? { ...design.gradient } : null,
    shapes: { ...design.shapes },
    eye_colors: design.eye_colors ? { ...design.eye_colors } : null,
    has_logo: hasLogo,
    transparent_background: design.transparent_background,
    frame: presentFrame(design),
  };
}

/** The frame as responses show it: its style (`none` without a frame), its text and both colours resolved. */
export function presentFrame(design: Design): { style: string; text: string | null; text_color: string; color: string } {
  const { color, text_color } = frameColors(design);
  return { style: design.frame?.style ?? 'none', text: design.frame?.text ?? null, text_color, color };
}
