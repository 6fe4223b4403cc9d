import { type ReactNode, useEffect, useState } from 'react';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../components/FormField';
import { FilePicker } from './FilePicker';
import type { FieldDef, Values } from './target-fields';

/** The inputs of a target type's fields (see target-fields.ts), each with its API error. */
export function TargetFields({ type, fields, values, onChange, errors }: { type: string; fields: FieldDef[]; values: Values; onChange: (v: Values) => void; errors: Record<string, string> }) {
  const set = (name: string, v: string | boolean) => onChange({ ...values, [name]: v });
  const ungrouped = fields.filter((f) => !f.group);
  const groups = [...new Set(fields.map((f) => f.group).filter((g): g is string => Boolean(g)))];
  return (
    <>
      {ungrouped.map((f) => (
        <div key={f.name}>{renderField(f)}</div>
      ))}
      {groups.map((group) => {
        const members = fields.filter((f) => f.group === group);
        return (
          <FieldGroup key={group} title={group} initiallyOpen={members.some((f) => Boolean(values[f.name]))} hasError={members.some((f) => Boolean(errors[f.name]))}>
            {members.map((f) => (
              <div key={f.name}>{renderField(f)}</div>
            ))}
          </FieldGroup>
        );
      })}
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
            return <FilePicker label={common.label} codeType={type} value={value} onChange={(id) => set(f.name, id)} error={common.error} />;
          default: {
            const inputType = f.kind === 'datetime' ? 'datetime-local' : f.kind === 'number' ? 'text' : f.kind;
            return <TextField {...common} type={inputType} inputMode={f.kind === 'number' ? 'decimal' : undefined} value={value} onChange={(e) => set(f.name, e.target.value)} />;
          }
        }
  }
}

/** Optional fields under a disclosure: open at first when one of them has a value, and opened by an error in one of
 * them (an error inside a closed disclosure would not be seen); otherwise the person opens and closes it. */
function FieldGroup({ title, initiallyOpen, hasError, children }: { title: string; initiallyOpen: boolean; hasError: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(initiallyOpen);
  useEffect(() => {
    if (hasError) setOpen(true);
  }, [hasError]);
  return (
    <details className="field-group" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{title}</summary>
      {children}
    </details>
  );
}
