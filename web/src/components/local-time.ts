/**
 * `datetime-local` inputs hold a wall-clock time without a zone, read in the browser's own time zone. The API's times
 * are ISO 8601 instants: these convert between the two, so that showing a stored time and saving it again gives the
 * same instant in every time zone (seconds are kept when the stored time has them).
 */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  const minutes = `${String(d.getFullYear()).padStart(4, '0')}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
  return d.getSeconds() ? `${minutes}:${p(d.getSeconds())}` : minutes;
}

/** A `datetime-local` value (the browser's time zone) as an ISO 8601 instant; what cannot be read is passed on as typed,
 * for the API to name. */
export function fromLocalInput(value: string): string {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}
