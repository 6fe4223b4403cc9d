import Papa from 'papaparse';

/**
 * A batch CSV: one code per row, a header line naming the columns. Target columns are the fields of the API's
 * inferred batch targets (`destination` → url, `text`, `email` (+ `subject`, `message`, `cc`, `bcc`), `phone`
 * (+ `message`) → sms, `ssid` (+ `password`, `encryption`) → wifi, `title` + `start` (+ `end`, `location`) → event);
 * `target_type` names the type outright. Item columns: `name`, `kind` (dynamic | static), `folder_id`, `tags`
 * (separated by `;` or `|`), `domain_id`, and `utm_source` … `utm_content` for url codes.
 */
export const TARGET_COLUMNS = ['destination', 'text', 'email', 'subject', 'message', 'cc', 'bcc', 'phone', 'ssid', 'password', 'encryption', 'title', 'location', 'start', 'end'] as const;
export const ITEM_COLUMNS = ['name', 'kind', 'folder_id', 'tags', 'domain_id', 'target_type'] as const;
export const UTM_COLUMNS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
const KNOWN = new Set<string>([...TARGET_COLUMNS, ...ITEM_COLUMNS, ...UTM_COLUMNS]);
/** As the API: at most 1,000 items per batch. */
export const MAX_ITEMS = 1000;

export interface BatchItem {
  name?: string;
  type?: 'dynamic' | 'static';
  folder_id?: string;
  tags?: string[];
  domain_id?: string;
  target: Record<string, unknown>;
}

export interface ParsedRow {
  /** 1-based line of the CSV (the header is line 1). */
  line: number;
  item: BatchItem;
  errors: string[];
}

export interface ParsedCsv {
  columns: string[];
  rows: ParsedRow[];
  /** Problems of the whole file (no rows, unknown columns, too many rows, CSV syntax). */
  errors: string[];
}

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && Boolean(u.hostname);
  } catch {
    return false;
  }
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The target type the API infers for a batch item without `type` (a preview needs it named). */
export const inferType = (t: Record<string, unknown>): string | undefined =>
  typeof t.type === 'string' ? t.type : 'ssid' in t ? 'wifi' : 'title' in t && 'start' in t ? 'event' : 'email' in t ? 'email' : 'phone' in t ? 'sms' : 'text' in t ? 'text' : 'destination' in t ? 'url' : undefined;

/** Turns one CSV record (header → value) into a batch item, checking what the API would refuse. */
export function rowToItem(record: Record<string, string>, line: number): ParsedRow {
  const errors: string[] = [];
  const value = (k: string) => (record[k] ?? '').trim();
  const target: Record<string, unknown> = {};
  for (const k of TARGET_COLUMNS) if (value(k)) target[k] = value(k);
  const utm: Record<string, string> = {};
  for (const k of UTM_COLUMNS) if (value(k)) utm[k.slice(4)] = value(k);
  if (Object.keys(utm).length) target.utm = utm;
  if (value('target_type')) target.type = value('target_type');
  const type = inferType(target);
  if (!type) errors.push('No target: fill destination, text, email, phone, ssid, or title and start');
  if (type === 'url' && (typeof target.destination !== 'string' || !isHttpUrl(target.destination))) errors.push('destination must be an http(s) URL');
  if (type === 'email' && !EMAIL.test(String(target.email ?? ''))) errors.push('email must be an e-mail address');
  if (type === 'wifi' && target.encryption !== undefined && !['WPA', 'WEP', 'nopass'].includes(String(target.encryption))) errors.push('encryption must be WPA, WEP or nopass');
  if (type === 'event') for (const k of ['start', 'end']) if (target[k] !== undefined && Number.isNaN(Date.parse(String(target[k])))) errors.push(`${k} must be a date and time (RFC 3339)`);
  const item: BatchItem = { target };
  if (value('name')) item.name = value('name');
  const kind = value('kind');
  if (kind) {
    if (kind === 'dynamic' || kind === 'static') item.type = kind;
    else errors.push('kind must be dynamic or static');
  }
  if (value('folder_id')) item.folder_id = value('folder_id');
  if (value('domain_id')) item.domain_id = value('domain_id');
  if (value('tags')) item.tags = value('tags').split(/[;|]/).map((t) => t.trim()).filter(Boolean);
  return { line, item, errors };
}

/** The first character of a record at or after `from` that is not blank (spaces, tabs, line breaks): a record's start
 * once the empty lines before it are skipped. */
function recordStart(text: string, from: number): number {
  let i = from;
  while (i < text.length && /[\s\uFEFF]/.test(text[i])) i++;
  // A record that starts with spaces starts at its line's beginning, not at its first visible character.
  const lineStart = text.lastIndexOf('\n', i - 1) + 1;
  return Math.max(from, lineStart);
}

/**
 * Parses a batch CSV (papaparse: quoted fields, embedded commas and line breaks, a BOM) into checked items. Each row
 * carries the line of the file it starts on, counting the empty lines papaparse skips and the line breaks inside
 * quoted fields, so the preview's "Line N" is the line an editor shows.
 */
export function parseBatchCsv(text: string): ParsedCsv {
  const records: Array<{ record: Record<string, string>; line: number }> = [];
  const syntax: string[] = [];
  let fields: string[] = [];
  // Lines are counted incrementally: `counted` newlines lie before `countedTo`.
  let counted = 0;
  let countedTo = 0;
  const lineAt = (index: number) => {
    for (; countedTo < index; countedTo++) if (text.charCodeAt(countedTo) === 10) counted++;
    return counted + 1;
  };
  // The header record ends at the first line break outside quotes after its first character.
  let previousEnd = headerEnd(text);
  Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim().toLowerCase(),
    step: (result) => {
      fields = result.meta.fields ?? fields;
      const line = lineAt(recordStart(text, previousEnd));
      previousEnd = result.meta.cursor;
      for (const e of result.errors) if (syntax.length < 5) syntax.push(`Line ${line}: ${e.message}`);
      records.push({ record: result.data, line });
    },
  });
  const columns = fields.filter(Boolean);
  const errors = [...syntax];
  const unknown = columns.filter((c) => !KNOWN.has(c));
  if (unknown.length) errors.push(`Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  if (records.length === 0) errors.push('The file has no rows under its header line');
  if (records.length > MAX_ITEMS) errors.push(`A batch holds at most ${MAX_ITEMS} rows; this file has ${records.length}`);
  const rows = records.map((r) => rowToItem(r.record, r.line));
  return { columns, rows, errors };
}

/** Where the header record ends: its first line break outside double quotes (the file's length when it has none). */
function headerEnd(text: string): number {
  let quoted = false;
  for (let i = recordStart(text, 0); i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) return i;
  }
  return text.length;
}

/** "items[3].target.destination" → the CSV line of item 3 (its row's line when the parsed rows are given; else as if
 * the file had no empty lines: header = line 1), or undefined. */
export function lineOfItemField(field: string | undefined, rows?: ParsedRow[]): number | undefined {
  const m = /^items\[(\d+)\]|^items\.(\d+)/.exec(field ?? '');
  if (!m) return undefined;
  const index = Number(m[1] ?? m[2]);
  return rows?.[index]?.line ?? index + 2;
}
