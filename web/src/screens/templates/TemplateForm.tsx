import { useEffect, useState } from 'react';
import { raw } from '../../api/client';
import { asApiError, fieldErrors } from '../../api/errors';
import { FormError, SelectField, TextField } from '../../components/FormField';
import { cleanDesign, type Design } from '../codes/DesignEditor';

/** The design fields the template editor edits; the rest of a stored design (frame, gradient, eye colours, a
 * transparent background) rides along in `rest` and is sent back as it was (a logo's URL is never sent back). */
export interface DesignDraft {
  foreground: string;
  background: string;
  body: string;
  eye_frame: string;
  eye_ball: string;
  error_correction: string;
  rest?: Record<string, unknown>;
}

/** The parts of a stored design the editor does not edit, in the form a request takes (as a code's Design tab sends
 * them: cleanDesign). */
function restOf(design: Design): Record<string, unknown> {
  const { gradient, eye_colors, frame, transparent_background } = cleanDesign(design);
  return { ...(gradient && { gradient }), ...(eye_colors && { eye_colors }), ...(frame && { frame }), ...(transparent_background && { transparent_background }) };
}

export const DEFAULT_DRAFT: DesignDraft = { foreground: '#000000', background: '#ffffff', body: 'square', eye_frame: 'square', eye_ball: 'square', error_correction: 'M' };

/** The draft as a request's design. With `unchangedLevel` (the level the template has, or the default `M` for a new
 * one) the error correction is sent only when the member changed it: a template that names its level keeps it when a
 * code made from it adds a logo, so the form must not name one the member never chose. */
export function toDesign(d: DesignDraft, unchangedLevel?: string) {
  return {
    ...d.rest,
    ...(d.error_correction !== unchangedLevel && { error_correction: d.error_correction as 'L' | 'M' | 'Q' | 'H' }),
    colors: { foreground: d.foreground, background: d.background },
    shapes: { body: d.body as 'square', eye_frame: d.eye_frame as 'square', eye_ball: d.eye_ball as 'square' },
  };
}

/** A stored design (a template's or a code's) as the editor's draft. */
export function fromDesign(design: unknown): DesignDraft {
  const d = (design ?? {}) as Design;
  return {
    rest: restOf(d),
    foreground: d.colors?.foreground ?? DEFAULT_DRAFT.foreground,
    background: d.colors?.background ?? DEFAULT_DRAFT.background,
    body: d.shapes?.body ?? DEFAULT_DRAFT.body,
    eye_frame: d.shapes?.eye_frame ?? DEFAULT_DRAFT.eye_frame,
    eye_ball: d.shapes?.eye_ball ?? DEFAULT_DRAFT.eye_ball,
    error_correction: d.error_correction ?? DEFAULT_DRAFT.error_correction,
  };
}

const BODY = ['square', 'dots', 'rounded', 'extra-rounded', 'classy'];
const EYE = ['square', 'rounded', 'circle'];
const EC = [
  { value: 'L', label: 'L (7 %)' },
  { value: 'M', label: 'M (15 %)' },
  { value: 'Q', label: 'Q (25 %)' },
  { value: 'H', label: 'H (30 %)' },
];
const opts = (xs: string[]) => xs.map((x) => ({ value: x, label: x }));

/**
 * The preview the API draws of a design (`POST /v1/qr-codes/preview`), merged over `template_id` when given. PNG, not
 * SVG: an SVG shown from a blob: URL inherits the page's CSP, which refuses the SVG's inline styles.
 */
export function usePreview(body: Record<string, unknown> | null): { url: string | null; error: string | null; fields: Record<string, string> } {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const key = JSON.stringify(body);
  useEffect(() => {
    if (!body) return;
    let live = true;
    let made: string | null = null;
    const t = setTimeout(() => {
      raw('/v1/qr-codes/preview?format=png&size=480', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'image/png' }, body: key })
        .then((res) => res.blob())
        .then((blob) => {
          if (!live) return;
          made = URL.createObjectURL(blob);
          setUrl(made);
          setError(null);
          setFields({});
        })
        .catch((err: unknown) => {
          if (!live) return;
          setError(asApiError(err).message);
          // The field the API names (a colour without enough contrast, a shape): shown at its input.
          setFields(fieldErrors(err, KNOWN).fields);
        });
    }, 300);
    return () => {
      live = false;
      clearTimeout(t);
      if (made) URL.revokeObjectURL(made);
    };
  }, [key]);
  return { url, error, fields };
}

type Errors = { fields: Record<string, string>; general?: string };
const KNOWN = ['name', 'design.colors.foreground', 'design.colors.background', 'design.colors', 'design.shapes.body', 'design.shapes.eye_frame', 'design.shapes.eye_ball', 'design.error_correction', 'design'];
const COLOURS = ['foreground', 'background'];

/** The error of a design input among errors keyed by field path (`design.colors.foreground`, `design.shapes.body`); a
 * colour also shows an error on both colours (`design.colors`: too little contrast). */
function designError(fields: Record<string, string>, k: string): string | undefined {
  return fields[`design.colors.${k}`] ?? fields[`design.shapes.${k}`] ?? fields[`design.${k}`] ?? (COLOURS.includes(k) ? fields['design.colors'] : undefined);
}

/** Name and design of a template, with the API's live preview beside them. */
export function TemplateForm({
  title,
  initialName,
  initialDraft,
  templateId,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  title: string;
  initialName: string;
  initialDraft: DesignDraft;
  templateId?: string;
  submitLabel: string;
  onSubmit: (name: string, draft: DesignDraft) => Promise<void>;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initialName);
  const [draft, setDraft] = useState(initialDraft);
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const preview = usePreview({ ...(templateId ? { template_id: templateId } : {}), design: toDesign(draft) });
  const set = (k: keyof DesignDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  // The last save's errors first, then the preview's (which follow every change).
  const err = (k: string) => designError(errors.fields, k) ?? designError(preview.fields, k);
  const previewBound = Object.keys(preview.fields).some((f) => f !== 'design' && f !== 'name');

  return (
    <form
      aria-label={title}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        try {
          await onSubmit(name, draft);
          setErrors({ fields: {} });
        } catch (error) {
          setErrors(fieldErrors(error, KNOWN));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>{title}</h2>
      <FormError message={errors.general ?? errors.fields.design} />
      <div className="editor-grid">
        <div>
          <TextField label="Template name" name="name" autoFocus required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} error={errors.fields.name} />
          <TextField label="Foreground colour" name="foreground" type="color" value={draft.foreground} onChange={set('foreground')} error={err('foreground')} hint={draft.foreground} />
          <TextField label="Background colour" name="background" type="color" value={draft.background} onChange={set('background')} error={err('background')} hint={draft.background} />
          <SelectField label="Module shape" value={draft.body} onChange={set('body')} options={opts(BODY)} error={err('body')} />
          <SelectField label="Eye frame shape" value={draft.eye_frame} onChange={set('eye_frame')} options={opts(EYE)} error={err('eye_frame')} />
          <SelectField label="Eye ball shape" value={draft.eye_ball} onChange={set('eye_ball')} options={opts(EYE)} error={err('eye_ball')} />
          <SelectField label="Error correction" value={draft.error_correction} onChange={set('error_correction')} options={EC} error={err('error_correction')} />
        </div>
        <div>
          <p className="hint" id={`${title}-preview`}>
            Preview drawn by the API
          </p>
          <div className="preview">
            {preview.url ? <img src={preview.url} alt={`Preview of ${name || 'the template'}`} /> : <span className="hint">{preview.error ?? 'Drawing…'}</span>}
          </div>
          {preview.error && preview.url && !previewBound && <p className="field-error">{preview.error}</p>}
        </div>
      </div>
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
