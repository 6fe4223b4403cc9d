import { useEffect, useState, type FormEvent } from 'react';
import { api, call } from '../../api/client';
import { fieldErrors } from '../../api/errors';
import { useLoad } from '../../api/paging';
import { CheckboxField, FormError, SelectField, TextAreaField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { ErrorState, Loading } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { FilePicker } from './FilePicker';
import { blank, CONTENT_SPECS, paths, pick, toBody, type FieldSpec } from './content-spec';

type Json = Record<string, unknown>;
type Errors = { fields: Record<string, string>; general?: string };

/**
 * The hosted-page content of a page-holding code (link page, form, menu, review page, app stores, file/audio/video),
 * replaced with PUT /v1/qr-codes/{id}/content. The API's errors land on the field they name (`links[2].url`).
 */
export default function ContentEditor({ codeId }: { codeId: string }) {
  const code = useLoad(() => call(api.GET('/v1/qr-codes/{id}', { params: { path: { id: codeId } } })), [codeId]);
  if (code.error) return <ErrorState error={code.error} onRetry={code.reload} />;
  if (!code.data) return <Loading />;
  const spec = CONTENT_SPECS[code.data.type];
  if (!spec) return <p>This code has no hosted content to edit.</p>;
  return <ContentForm codeId={codeId} codeType={code.data.type} spec={spec} stored={code.data.target} onSaved={code.reload} />;
}

function ContentForm({ codeId, codeType, spec, stored, onSaved }: { codeId: string; codeType: string; spec: FieldSpec[]; stored: unknown; onSaved: () => void }) {
  const { canEdit } = useSession();
  const toast = useToast();
  const [value, setValue] = useState<Json>(() => pick(spec, stored));
  const [errors, setErrors] = useState<Errors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  useEffect(() => setValue(pick(spec, stored)), [spec, stored]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      await call(api.PUT('/v1/qr-codes/{id}/content', { params: { path: { id: codeId } }, body: toBody(spec, value) as never }));
      toast('Content saved');
      onSaved();
    } catch (err) {
      setErrors(fieldErrors(err, paths(spec, value)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void save(e)} aria-labelledby="content-h" noValidate>
      <h2 id="content-h">Page content</h2>
      <FormError message={errors.general} />
      <Fields spec={spec} value={value} onChange={setValue} errors={errors.fields} prefix="" context="" disabled={!canEdit} codeType={codeType} />
      {canEdit && (
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Saving…' : 'Save content'}
        </button>
      )}
    </form>
  );
}

function Fields({
  spec,
  value,
  onChange,
  errors,
  prefix,
  context,
  disabled,
  codeType,
}: {
  spec: FieldSpec[];
  value: Json;
  onChange: (v: Json) => void;
  errors: Record<string, string>;
  prefix: string;
  context: string;
  disabled: boolean;
  codeType: string;
}) {
  return (
    <>
      {spec.map((f) => {
        const path = prefix ? `${prefix}.${f.key}` : f.key;
        const label = context ? `${context} ${f.label}` : f.label;
        const set = (x: unknown) => onChange({ ...value, [f.key]: x });
        const common = { label, error: errors[path], hint: 'hint' in f ? f.hint : undefined, disabled, name: path };
        switch (f.kind) {
          case 'textarea':
            return <TextAreaField key={f.key} {...common} value={String(value[f.key] ?? '')} onChange={(e) => set(e.target.value)} />;
          case 'file':
            return <FilePicker key={f.key} label={label} codeType={codeType} value={String(value[f.key] ?? '')} onChange={set} error={errors[path]} disabled={disabled} />;
          case 'checkbox':
            return <CheckboxField key={f.key} {...common} checked={value[f.key] === true} onChange={(e) => set(e.target.checked)} />;
          case 'select':
            return <SelectField key={f.key} {...common} value={String(value[f.key] || f.options[0])} onChange={(e) => set(e.target.value)} options={f.options.map((o) => ({ value: o, label: o }))} />;
          case 'group':
            return (
              <fieldset key={f.key}>
                <legend>{f.label}</legend>
                <FormError message={errors[path]} />
                <Fields spec={f.fields} value={(value[f.key] as Json) ?? {}} onChange={set} errors={errors} prefix={path} context={context} disabled={disabled} codeType={codeType} />
              </fieldset>
            );
          case 'list': {
            const items = (value[f.key] as Json[]) ?? [];
            const setItem = (i: number, x: Json) => set(items.map((it, j) => (j === i ? x : it)));
            return (
              <fieldset key={f.key}>
                <legend>{context ? `${context} ${f.label}` : f.label}</legend>
                <FormError message={errors[path]} />
                {items.map((it, i) => {
                  const name = `${context ? `${context} ` : ''}${f.item} ${i + 1}`;
                  return (
                    <div key={i} className="list-item">
                      <FormError message={errors[`${path}.${i}`]} />
                      <Fields spec={f.fields} value={it} onChange={(x) => setItem(i, x)} errors={errors} prefix={`${path}.${i}`} context={name} disabled={disabled} codeType={codeType} />
                      {!disabled && (
                        <div className="actions">
                          <button type="button" className="button secondary" disabled={i === 0} onClick={() => set(swap(items, i, i - 1))}>
                            Move {name} up
                          </button>
                          <button type="button" className="button danger" onClick={() => set(items.filter((_, j) => j !== i))}>
                            Remove {name}
                          </button>
                        </div>
                      )}
                    </div>
                  );
                })}
                {!disabled && (
                  <button type="button" className="button secondary" onClick={() => set([...items, blank(f.fields)])}>
                    Add {context ? `${context} ` : ''}
                    {f.item.toLowerCase()}
                  </button>
                )}
              </fieldset>
            );
          }
          default:
            return <TextField key={f.key} {...common} type={f.kind === 'text' || f.kind === 'price' ? 'text' : f.kind} value={String(value[f.key] ?? '')} onChange={(e) => set(e.target.value)} />;
        }
      })}
    </>
  );
}

function swap<T>(xs: T[], a: number, b: number): T[] {
  const out = [...xs];
  [out[a], out[b]] = [out[b], out[a]];
  return out;
}
