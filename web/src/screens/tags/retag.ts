/** A code's tags with `from` replaced by `to` (or removed when `to` is null), trimmed and without duplicates. */
export function retag(tags: readonly string[], from: string, to: string | null): string[] {
  const out: string[] = [];
  for (const t of tags) {
    const v = t === from ? to : t;
    if (v !== null && !out.includes(v.trim())) out.push(v.trim());
  }
  return out;
}
