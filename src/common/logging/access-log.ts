/** The `code` of an error answer's envelope (`{"error":{"code":…}}`), for its access line; undefined for anything else
 * (a success, an HTML status page, a binary body). Error bodies are small, so parsing them costs nothing noticeable. */
export function envelopeCode(payload: unknown): string | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const text = payload.toString();
  if (!text.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
