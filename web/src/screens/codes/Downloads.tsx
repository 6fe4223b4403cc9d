import { useState } from 'react';
import { raw } from '../../api/client';
import { asApiError } from '../../api/errors';
import { SelectField, TextField } from '../../components/FormField';

/** Saves a Response as a file under the name its Content-Disposition gives. */
export async function saveResponse(res: Response, fallback: string): Promise<void> {
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="([^"]+)"/i.exec(disposition)?.[1] ?? fallback;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = decodeURIComponent(name);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Download the code's image: SVG, PNG, WebP at a chosen width, or a vector PDF at a printed size. */
export function Downloads({ codeId }: { codeId: string }) {
  const [format, setFormat] = useState('png');
  const [size, setSize] = useState('1000');
  const [printMm, setPrintMm] = useState('50');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    setErrors({});
    try {
      const q = new URLSearchParams({ format });
      if (format === 'png' || format === 'webp') q.set('size', size);
      if (format === 'pdf') q.set('print_mm', printMm);
      const res = await raw(`/v1/qr-codes/${codeId}/download?${q}`);
      await saveResponse(res, `qr-code.${format}`);
    } catch (err) {
      const e = asApiError(err);
      setErrors({ [e.field ?? 'general']: e.message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset>
      <legend>Download</legend>
      <SelectField
        label="Format"
        value={format}
        onChange={(e) => setFormat(e.target.value)}
        options={[
          { value: 'svg', label: 'SVG (vector)' },
          { value: 'png', label: 'PNG' },
          { value: 'webp', label: 'WebP' },
          { value: 'pdf', label: 'PDF (vector, for print)' },
        ]}
        error={errors.format}
      />
      {(format === 'png' || format === 'webp') && <TextField label="Width in pixels" inputMode="numeric" value={size} onChange={(e) => setSize(e.target.value)} hint="100 to 4000" error={errors.size} />}
      {format === 'pdf' && <TextField label="Printed width in mm" inputMode="decimal" value={printMm} onChange={(e) => setPrintMm(e.target.value)} hint="10 to 1000" error={errors.print_mm} />}
      {errors.general && (
        <p role="alert" className="field-error">
          {errors.general}
        </p>
      )}
      <button type="button" className="button" disabled={busy} onClick={download}>
        Download
      </button>
    </fieldset>
  );
}
