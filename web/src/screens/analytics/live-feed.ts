import { raw } from '../../api/client';
import type { Schemas } from '../../api/client';

export type ScanRow = Schemas['ScanRowDto'];

/** One Server-Sent Event block (`id:`, `event:`, `data:` lines) → its fields; comments and `retry:` are skipped. */
export function parseSseBlock(block: string): { id?: string; event: string; data: string } | null {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { id, event, data: data.join('\n') } : null;
}

/**
 * Follows `GET /v1/scans/live` (Server-Sent Events). An EventSource cannot send the session's Bearer token, so this
 * reads the stream with fetch (through the client's auth and refresh) and resumes after a drop with `Last-Event-ID`,
 * so no scan is missed or shown twice. Returns a stop function.
 */
export function followLiveScans(codeId: string | undefined, onScan: (s: ScanRow) => void, onState: (s: 'connecting' | 'live' | 'error', message?: string) => void): () => void {
  const controller = new AbortController();
  let lastId: string | undefined;
  let stopped = false;
  const run = async () => {
    while (!stopped) {
      onState('connecting');
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (lastId) headers['last-event-id'] = lastId;
        const res = await raw(`/v1/scans/live${codeId ? `?qr_code_id=${encodeURIComponent(codeId)}` : ''}`, { headers, signal: controller.signal });
        onState('live');
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
            const ev = parseSseBlock(block);
            if (!ev) continue;
            if (ev.id) lastId = ev.id;
            if (ev.event === 'scan') onScan(JSON.parse(ev.data) as ScanRow);
          }
        }
      } catch (err) {
        if (stopped) return;
        onState('error', err instanceof Error ? err.message : String(err));
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 2000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
