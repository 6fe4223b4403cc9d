import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isKnownLinter } from './linters';

/** One component of an AI's data field, e.g. `N13,csum,gcppos1` or `[X..17]`. */
export interface AiComponent {
  /** N numeric, X CSET 82, Y CSET 39, Z CSET 64 (base64url) */
  cset: 'N' | 'X' | 'Y' | 'Z';
  min: number;
  max: number;
  optional: boolean;
  linters: string[];
}

export interface AiEntry {
  ai: string;
  title: string;
  /** flag `?`: allowed as a Digital Link data attribute (query string) */
  dlDataAttribute: boolean;
  components: AiComponent[];
  /** `dlpkey[=…]`: null when the AI is not a primary key; otherwise the allowed qualifier sequences ([] alone = none) */
  dlQualifierSequences: string[][] | null;
  /** `req=`: every group must be satisfied by one alternative; an alternative is AIs or patterns joined by `+` */
  requires: string[][][];
  /** `ex=`: AIs or patterns that must not appear together with this one */
  excludes: string[];
}

const COMPONENT = /^(\[?)([NXYZ])(\.\.)?(\d+)(\]?)((?:,[a-z0-9]+)*)$/;
const FLAGS = /^[*!?"$%&'()+,\-./:;<=>@[\\\]^_`{|}~]+$/;
const AI_TOKEN = /^(\d{2,4})(?:-(\d{2,4}))?$/;

/** Parses GS1's Syntax Dictionary text (the format its header describes). Throws on anything it does not understand. */
export function parseSyntaxDictionary(text: string): Map<string, AiEntry> {
  const entries = new Map<string, AiEntry>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const hash = raw.indexOf('#');
    const body = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (!body) return;
    const title = hash >= 0 ? raw.slice(hash + 1).trim() : '';
    const where = `line ${index + 1}`;
    const tokens = body.split(/\s+/);
    const range = AI_TOKEN.exec(tokens.shift() ?? '');
    if (!range) throw new Error(`GS1 Syntax Dictionary, ${where}: bad AI '${body}'`);
    let flags = '';
    if (tokens.length && FLAGS.test(tokens[0])) flags = tokens.shift() as string;
    const components: AiComponent[] = [];
    while (tokens.length && COMPONENT.test(tokens[0])) components.push(parseComponent(tokens.shift() as string, where));
    if (!components.length) throw new Error(`GS1 Syntax Dictionary, ${where}: no specification`);
    const entry = { title, dlDataAttribute: flags.includes('?'), components, ...parseAttributes(tokens, where) };
    for (const ai of expandRange(range[1], range[2])) entries.set(ai, { ai, ...entry });
  });
  return entries;
}

function parseComponent(token: string, where: string): AiComponent {
  const [, open, cset, dots, length, close, linters] = COMPONENT.exec(token) as RegExpExecArray;
  if (open !== (close ? '[' : '')) throw new Error(`GS1 Syntax Dictionary, ${where}: unbalanced '${token}'`);
  const names = linters ? linters.slice(1).split(',') : [];
  for (const name of names) if (!isKnownLinter(name)) throw new Error(`GS1 Syntax Dictionary, ${where}: unknown linter '${name}'`);
  const max = Number(length);
  return { cset: cset as AiComponent['cset'], min: dots ? 1 : max, max, optional: open === '[', linters: names };
}

function parseAttributes(tokens: string[], where: string): Pick<AiEntry, 'dlQualifierSequences' | 'requires' | 'excludes'> {
  const out: Pick<AiEntry, 'dlQualifierSequences' | 'requires' | 'excludes'> = { dlQualifierSequences: null, requires: [], excludes: [] };
  for (const token of tokens) {
    const [key, value] = token.split('=', 2);
    if (key === 'dlpkey') out.dlQualifierSequences = value ? value.split('|').map((seq) => seq.split(',')) : [];
    else if (key === 'req' && value) out.requires.push(value.split(',').map((alt) => alt.split('+')));
    else if (key === 'ex' && value) out.excludes.push(...value.split(','));
    else throw new Error(`GS1 Syntax Dictionary, ${where}: unknown attribute '${token}'`);
  }
  return out;
}

function expandRange(first: string, last?: string): string[] {
  if (!last) return [first];
  if (first.length !== last.length) throw new Error(`GS1 Syntax Dictionary: bad range ${first}-${last}`);
  const out: string[] = [];
  for (let n = Number(first); n <= Number(last); n++) out.push(String(n).padStart(first.length, '0'));
  return out;
}

/** `310n`, `31nn`: an AI pattern of the dictionary's `req=`/`ex=` attributes. */
export function aiMatchesPattern(ai: string, pattern: string): boolean {
  return ai.length === pattern.length && [...pattern].every((ch, i) => ch === 'n' ? /\d/.test(ai[i]) : ch === ai[i]);
}

let dictionary: Map<string, AiEntry> | undefined;

/** The shipped dictionary (data/gs1-syntax-dictionary.txt), parsed once. */
export function gs1Dictionary(): Map<string, AiEntry> {
  dictionary ??= parseSyntaxDictionary(readFileSync(join(__dirname, 'data', 'gs1-syntax-dictionary.txt'), 'utf8'));
  return dictionary;
}

/** The primary-key AIs of the dictionary, in dictionary order. */
export function dlPrimaryKeys(): string[] {
  return [...gs1Dictionary().values()].filter((e) => e.dlQualifierSequences).map((e) => e.ai);
}
