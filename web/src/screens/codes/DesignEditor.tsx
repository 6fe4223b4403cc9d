import { useEffect, useRef, useState } from 'react';
import { api, call, raw } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { CheckboxField, SelectField, TextField } from '../../components/FormField';

export interface Design {
  error_correction?: 'L' | 'M' | 'Q' | 'H';
  colors?: { foreground?: string; background?: string };
  /** Kept as stored (set through the API or a template); the editor does not change them. */
  gradient?: { start?: string; end?: string; type?: string } | null;
  eye_colors?: { frame?: string; ball?: string } | null;
  shapes?: { body?: string; eye_frame?: string; eye_ball?: string };
  frame?: { style?: string; text?: string | null; color?: string; text_color?: string };
  logo?: { url: string; clear_background?: boolean } | null;
  transparent_background?: boolean;
}

/** Field paths the editor shows (API error fields land on these). */
export const DESIGN_FIELDS = [
  'design.colors.foreground',
  'design.colors.background',
  'design.colors',
  'design.shapes.body',
  'design.shapes.eye_frame',
  'design.shapes.eye_ball',
  'design.error_correction',
  'design.frame.style',
  'design.frame.text',
  'design.frame',
  'design.logo',
  'template_id',
] as const;

const opts = (...values: string[]) => values.map((v) => ({ value: v, label: v.replace(/[-_]/g, ' ') }));

/** The design without empty parts, as the API takes it. */
export function cleanDesign(d: Design): Design {
  const out: Design = {};
  if (d.error_correction) out.error_correction = d.error_correction;
  if (d.colors && (d.colors.foreground || d.colors.background)) out.colors = { ...d.colors };
  if (d.shapes && Object.values(d.shapes).some(Boolean)) out.shapes = Object.fromEntries(Object.entries(d.shapes).filter(([, v]) => v));
  if (d.gradient) out.gradient = { ...d.gradient };
  if (d.eye_colors) out.eye_colors = { ...d.eye_colors };
  if (d.frame?.style && d.frame.style !== 'none') {
    out.frame = { style: d.frame.style, ...(d.frame.text && { text: d.frame.text }), ...(d.frame.color && { color: d.frame.color }), ...(d.frame.text_color && { text_color: d.frame.text_color }) };
  }
  if (d.logo?.url) out.logo = { url: d.logo.url, ...(d.logo.clear_background !== undefined && { clear_background: d.logo.clear_background }) };
  if (d.transparent_background) out.transparent_background = true;
  return out;
}

/**
 * The design as a code's PATCH sends it. PATCH keeps what a request leaves out, so what the editor turned off is sent
 * as such: an unticked transparent background as `false`, no frame as `{style: "none"}`, a removed logo as `null`.
 */
export function designPatch(d: Design): Design {
  const out = cleanDesign(d);
  if (!d.transparent_background) out.transparent_background = false;
  if (!out.frame) out.frame = { style: 'none' };
  if (d.logo === null) out.logo = null;
  return out;
}

/**
 * Colours, shapes, error correction, frame, logo and template, with a live preview drawn by the API
 * (`POST /v1/qr-codes/preview?format=png`, 400 ms after the last change). The preview's validation errors (contrast,
 * frame text, logo) appear at their fields, exactly as creating or saving would report them.
 */
/** The API's limit for a logo, decoded (docs/design.md: 1 MB). */
const MAX_LOGO_BYTES = 1024 * 1024;

export function DesignEditor({
  design,
  onChange,
  templateId,
  onTemplateChange,
  previewBody,
  errors: outerErrors = {},
  storedLogo = false,
}: {
  design: Design;
  onChange: (d: Design) => void;
  templateId?: string;
  onTemplateChange?: (id: string) => void;
  /** The code's kind and target, for the preview (a code's own payload). */
  previewBody: { type?: 'dynamic' | 'static'; target?: Record<string, unknown> };
  errors?: Record<string, string>;
  /** The code already has a logo (`has_logo`): it can be removed; the preview cannot draw it (its URL is not sent back). */
  storedLogo?: boolean;
}) {
  const [preview, setPreview] = useState<string | null>(null);
  const [previewError, setPreviewError] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [logoError, setLogoError] = useState<string | undefined>();
  const [templates, setTemplates] = useState<Array<{ id: string; name: string }>>([]);
  const urlRef = useRef<string | null>(null);
  const body = JSON.stringify({ ...previewBody, design: cleanDesign(design), ...(templateId && { template_id: templateId }) });

  useEffect(() => {
    if (!onTemplateChange) return;
    call(api.GET('/v1/templates', { params: { query: { limit: 100 } } })).then(
      (page) => setTemplates(page.data.map((t) => ({ id: t.id, name: t.name }))),
      () => undefined,
    );
  }, [onTemplateChange]);

  useEffect(() => {
    const timer = setTimeout(async () => {
      try {
        const res = await raw('/v1/qr-codes/preview?format=png&size=480', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const url = URL.createObjectURL(await res.blob());
        if (urlRef.current) URL.revokeObjectURL(urlRef.current);
        urlRef.current = url;
        setPreview(url);
        setPreviewError({ fields: {} });
      } catch (err) {
        setPreviewError(fieldErrors(asApiError(err), [...DESIGN_FIELDS]));
      }
    }, 400);
    return () => clearTimeout(timer);
  }, [body]);
  useEffect(() => () => void (urlRef.current && URL.revokeObjectURL(urlRef.current)), []);

  const errors = { ...previewError.fields, ...outerErrors };
  const set = (patch: Partial<Design>) => onChange({ ...design, ...patch });

  return (
    <div className="editor-grid">
      <div>
        {onTemplateChange && (
          <SelectField
            label="Template"
            value={templateId ?? ''}
            onChange={(e) => onTemplateChange(e.target.value)}
            options={[{ value: '', label: 'No template' }, ...templates.map((t) => ({ value: t.id, label: t.name }))]}
            error={errors.template_id}
          />
        )}
        <fieldset>
          <legend>Colours</legend>
          <TextField
            label="Foreground colour"
            type="color"
            value={design.colors?.foreground ?? '#000000'}
            onChange={(e) => set({ colors: { ...design.colors, foreground: e.target.value } })}
            error={errors['design.colors.foreground'] ?? errors['design.colors']}
          />
          <TextField
            label="Background colour"
            type="color"
            value={design.colors?.background ?? '#ffffff'}
            onChange={(e) => set({ colors: { ...design.colors, background: e.target.value } })}
            error={errors['design.colors.background']}
          />
          <CheckboxField label="Transparent background" checked={design.transparent_background ?? false} onChange={(e) => set({ transparent_background: e.target.checked })} />
        </fieldset>
        <fieldset>
          <legend>Shapes</legend>
          <SelectField label="Body" value={design.shapes?.body ?? 'square'} onChange={(e) => set({ shapes: { ...design.shapes, body: e.target.value } })} options={opts('square', 'dots', 'rounded', 'extra-rounded', 'classy')} error={errors['design.shapes.body']} />
          <SelectField label="Eye frame" value={design.shapes?.eye_frame ?? 'square'} onChange={(e) => set({ shapes: { ...design.shapes, eye_frame: e.target.value } })} options={opts('square', 'rounded', 'circle')} error={errors['design.shapes.eye_frame']} />
          <SelectField label="Eye ball" value={design.shapes?.eye_ball ?? 'square'} onChange={(e) => set({ shapes: { ...design.shapes, eye_ball: e.target.value } })} options={opts('square', 'rounded', 'circle')} error={errors['design.shapes.eye_ball']} />
          <SelectField
            label="Error correction"
            value={design.error_correction ?? ''}
            onChange={(e) => set({ error_correction: (e.target.value || undefined) as Design['error_correction'] })}
            options={[{ value: '', label: 'Default (M, or H with a logo)' }, ...opts('L', 'M', 'Q', 'H')]}
            error={errors['design.error_correction']}
          />
        </fieldset>
        <fieldset>
          <legend>Frame</legend>
          <SelectField label="Frame style" value={design.frame?.style ?? 'none'} onChange={(e) => set({ frame: { ...design.frame, style: e.target.value } })} options={opts('none', 'box', 'banner_bottom', 'banner_top', 'rounded_box')} error={errors['design.frame.style'] ?? errors['design.frame']} />
          {design.frame?.style && design.frame.style !== 'none' && (
            <TextField label="Frame text" maxLength={24} value={design.frame?.text ?? ''} onChange={(e) => set({ frame: { ...design.frame, text: e.target.value } })} error={errors['design.frame.text']} hint="1–24 characters, e.g. Scan me" />
          )}
        </fieldset>
        <fieldset>
          <legend>Logo</legend>
          <TextField
            label="Logo image"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/svg+xml"
            hint="PNG, JPEG, WebP or SVG, at most 1 MB; it covers at most 30 % of the code"
            error={logoError ?? errors['design.logo']}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (!file) return;
              // Said at the field before anything is sent: the API's own refusal of a body this large would be about
              // the request, not the logo.
              if (file.size > MAX_LOGO_BYTES) {
                setLogoError(`The logo is larger than 1 MB (${(file.size / 1024 / 1024).toFixed(1)} MB): choose a smaller image`);
                return;
              }
              setLogoError(undefined);
              const reader = new FileReader();
              reader.onload = () => set({ logo: { url: String(reader.result) } });
              reader.readAsDataURL(file);
            }}
          />
          {(design.logo?.url || (storedLogo && design.logo === undefined)) && (
            <button type="button" className="button secondary" onClick={() => set({ logo: null })}>
              Remove the logo
            </button>
          )}
        </fieldset>
      </div>
      <div>
        <h3>Preview</h3>
        <div className="preview" aria-live="polite">
          {preview ? <img src={preview} alt="Preview of the QR code with this design" /> : <p className="hint">Drawing…</p>}
        </div>
        {storedLogo && design.logo === undefined && <p className="hint">The preview leaves out the logo this code already has; saving keeps it.</p>}
        {previewError.general && (
          <p className="field-error" role="alert">
            {previewError.general}
          </p>
        )}
      </div>
    </div>
  );
}
