import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface Common {
  label: ReactNode;
  /** The API's message for this field (from fieldErrors), bound by aria-describedby and aria-invalid. */
  error?: string;
  hint?: ReactNode;
}

function describe(id: string, error?: string, hint?: ReactNode) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { 'aria-describedby': ids || undefined, 'aria-invalid': error ? true : undefined } as const;
}

function Extras({ id, error, hint }: { id: string; error?: string; hint?: ReactNode }) {
  return (
    <>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </>
  );
}

/** A labelled input with its hint and error text. `name` is also the field's key in fieldErrors. */
export function TextField({ label, error, hint, id: given, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} {...describe(id, error, hint)} {...input} />
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function TextAreaField({ label, error, hint, id: given, ...input }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} {...describe(id, error, hint)} {...input} />
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function SelectField({
  label,
  error,
  hint,
  id: given,
  options,
  ...select
}: Common & SelectHTMLAttributes<HTMLSelectElement> & { options: ReadonlyArray<{ value: string; label: string }> }) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} {...describe(id, error, hint)} {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

export function CheckboxField({ label, error, hint, id: given, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className={`field field-check${error ? ' has-error' : ''}`}>
      <input id={id} type="checkbox" {...describe(id, error, hint)} {...input} />
      <label htmlFor={id}>{label}</label>
      <Extras id={id} error={error} hint={hint} />
    </div>
  );
}

/** The message of an error no field of the form owns. */
export function FormError({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className="form-error">
      {message}
    </p>
  );
}
