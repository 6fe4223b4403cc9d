import { useState } from 'react';
import { raw } from '../../api/client';
import { asApiError } from '../../api/errors';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../components/FormField';
import type { FieldDef, Values } from './target-fields';

/** The inputs of a target type's fields (see target-fields.ts), each with its API error. */
export function TargetFields({ fields, values, onChange, errors }: { fields: FieldDef[]; values: Values; onChange: (v: Values) => void; errors: Record<string, string> }) {
  const set = (name: string, v: string | boolean) => onChange({ ...values, [name]: v });
  return (
    <>
      {fields.map((f) => (
        <div key={f.name}>{renderField(f)}</div>
      ))}
    </>
  );

  function renderField(f: FieldDef) {
        const common = { label: `${f.label}${f.required ? ' (required)' : ''}`, name: f.name, hint: f.hint, error: errors[f.name] };
        const value = String(values[f.name] ?? '');
        switch (f.kind) {
          case 'textarea':
          case 'lines':
            return <TextAreaField {...common} value={value} onChange={(e) => set(f.name, e.target.value)} />;
          case 'select':
            return <SelectField {...common} value={value || f.options?.[0]?.value} onChange={(e) => set(f.name, e.target.value)} options={f.options ?? []} />;
          case 'checkbox':
            return <CheckboxField {...common} checked={Boolean(values[f.name])} onChange={(e) => set(f.name, e.target.checked)} />;
          case 'file':
            return <FileUpload {...common} fileId={value} onUploaded={(id) => set(f.name, id)} />;
          default: {
            const type = f.kind === 'datetime' ? 'datetime-local' : f.kind === 'number' ? 'text' : f.kind;
            return <TextField {...common} type={type} inputMode={f.kind === 'number' ? 'decimal' : undefined} value={value} onChange={(e) => set(f.name, e.target.value)} />;
          }
        }
  }
}

/** Uploads a file (`POST /v1/files`, one multipart part named `file`) and hands its id to the form. */
function FileUpload({ label, hint, error, fileId, onUploaded }: { label: string; hint?: string; error?: string; fileId: string; onUploaded: (id: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [uploadError, setUploadError] = useState<string>();
  return (
    <TextField
      label={label}
      type="file"
      hint={busy ? 'Uploading…' : fileId ? `Uploaded (${fileId})` : hint}
      error={uploadError ?? error}
      onChange={async (e) => {
        const file = e.target.files?.[0];
        if (!file) return;
        setBusy(true);
        setUploadError(undefined);
        try {
          const form = new FormData();
          form.append('file', file);
          const res = await raw('/v1/files', { method: 'POST', body: form });
          onUploaded(((await res.json()) as { id: string }).id);
        } catch (err) {
          setUploadError(asApiError(err).message);
        } finally {
          setBusy(false);
        }
      }}
    />
  );
}
