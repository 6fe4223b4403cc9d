import { aiLabel, checkAiValue, knownAi } from './ai-value';
import { Gs1Error } from './gs1.error';
import { encodeDlValue } from './percent-encoding';
import { aiMatchesPattern, gs1Dictionary, type AiEntry } from './syntax-dictionary';

export interface AiValue {
  ai: string;
  value: string;
}

/** A validated GS1 identifier: primary key, ordered qualifiers, data attributes (query). Values are decoded. */
export interface Gs1Identifier {
  primaryKey: AiValue;
  qualifiers: AiValue[];
  attributes: AiValue[];
}

/** Where each part of an identifier came from, for the `field` of errors. */
export interface FieldNames {
  primaryKey(part: 'ai' | 'value'): string;
  qualifier(index: number, part: 'ai' | 'value'): string;
  attribute(index: number, part: 'ai' | 'value'): string;
  /** the field for rules over the whole qualifier path (order, repeats) */
  qualifierPath: string;
}

/** GTIN-8/12/13 → 14 digits: leading zeros keep the check digit, whose weights count from the right. */
export function padGtin(value: string): string {
  return /^(\d{8}|\d{12}|\d{13})$/.test(value) ? value.padStart(14, '0') : value;
}

/** Path AIs must be a subsequence of one allowed alternative, each at most once. */
export function isAllowedQualifierPath(sequences: string[][], ais: string[]): boolean {
  if (new Set(ais).size !== ais.length) return false;
  if (!ais.length) return true;
  return sequences.some((alt) => {
    let j = 0;
    for (const ai of ais) {
      j = alt.indexOf(ai, j);
      if (j < 0) return false;
      j++;
    }
    return true;
  });
}

/** The primary key's dictionary entry, or why the AI cannot be one. */
export function primaryKeyEntry(ai: unknown, field: string): AiEntry & { dlQualifierSequences: string[][] } {
  const entry = knownAi(ai, field);
  if (!entry.dlQualifierSequences) {
    throw new Gs1Error('GS1_INVALID_PRIMARY_KEY', field, `AI ${aiLabel(entry)} is not a GS1 Digital Link primary key`);
  }
  return entry as AiEntry & { dlQualifierSequences: string[][] };
}

/** Validates every rule of a Digital Link identifier. Values must already be decoded (and a GTIN padded). */
export function checkIdentifier(id: Gs1Identifier, names: FieldNames): void {
  const pk = primaryKeyEntry(id.primaryKey.ai, names.primaryKey('ai'));
  checkAiValue(pk, id.primaryKey.value, names.primaryKey('value'));
  const allowed = new Set(pk.dlQualifierSequences.flat());
  id.qualifiers.forEach((q, i) => {
    const entry = knownAi(q.ai, names.qualifier(i, 'ai'));
    if (!allowed.has(entry.ai)) {
      const list = allowed.size ? `only ${[...allowed].join(', ')}` : 'none';
      throw new Gs1Error('GS1_QUALIFIER_ORDER', names.qualifier(i, 'ai'), `AI ${aiLabel(entry)} is not a qualifier of primary key ${pk.ai} (allowed: ${list})`);
    }
    checkAiValue(entry, q.value, names.qualifier(i, 'value'));
  });
  if (!isAllowedQualifierPath(pk.dlQualifierSequences, id.qualifiers.map((q) => q.ai))) {
    const rule = pk.dlQualifierSequences.map((s) => s.join(' → ')).join(' or ');
    throw new Gs1Error('GS1_QUALIFIER_ORDER', names.qualifierPath, `Qualifiers of primary key ${pk.ai} must follow ${rule}, each at most once, alternatives not mixed`);
  }
  const seen = new Set([pk.ai, ...id.qualifiers.map((q) => q.ai)]);
  id.attributes.forEach((a, i) => {
    const entry = knownAi(a.ai, names.attribute(i, 'ai'));
    if (allowed.has(entry.ai)) {
      throw new Gs1Error('GS1_QUALIFIER_IN_QUERY', names.attribute(i, 'ai'), `AI ${aiLabel(entry)} is a key qualifier of ${pk.ai}: it belongs in the path, not in the attributes`);
    }
    if (seen.has(entry.ai)) throw new Gs1Error('GS1_DUPLICATE_AI', names.attribute(i, 'ai'), `AI ${aiLabel(entry)} appears twice`);
    if (!entry.dlDataAttribute) {
      throw new Gs1Error('GS1_NOT_DATA_ATTRIBUTE', names.attribute(i, 'ai'), `AI ${aiLabel(entry)} is not permitted as a GS1 Digital Link data attribute`);
    }
    seen.add(entry.ai);
    checkAiValue(entry, a.value, names.attribute(i, 'value'));
  });
  checkCombinations(id, names);
}

/**
 * The dictionary's pairing rules: `ex=` (excluded) over every AI of the Digital Link; `req=` (required) for data
 * attributes only, since the primary key's `dlpkey` already says which qualifiers may follow it (`/8006/…/22/…` is a
 * valid path although AI 22 alone lists `req=01`).
 */
function checkCombinations(id: Gs1Identifier, names: FieldNames): void {
  const all = [id.primaryKey, ...id.qualifiers, ...id.attributes].map((p) => p.ai);
  const fieldOf = (index: number) =>
    index === 0 ? names.primaryKey('ai') : index <= id.qualifiers.length ? names.qualifier(index - 1, 'ai') : names.attribute(index - 1 - id.qualifiers.length, 'ai');
  const present = (pattern: string, self: string) => all.some((ai) => ai !== self && aiMatchesPattern(ai, pattern));
  all.forEach((ai, index) => {
    const entry = gs1Dictionary().get(ai) as AiEntry;
    const clash = entry.excludes.find((pattern) => present(pattern, ai));
    if (clash) {
      throw new Gs1Error('GS1_INVALID_AI_COMBINATION', fieldOf(index), `AI ${aiLabel(entry)} cannot be used together with AI ${clash}`);
    }
    const missing = index <= id.qualifiers.length ? undefined : entry.requires.find((group) => !group.some((alt) => alt.every((pattern) => present(pattern, ai))));
    if (missing) {
      const options = missing.map((alt) => alt.join(' + ')).join(' or ');
      throw new Gs1Error('GS1_INVALID_AI_COMBINATION', fieldOf(index), `AI ${aiLabel(entry)} requires AI ${options}`);
    }
  });
}

/** `/01/09506000134352/10/ABC`: the canonical path of a primary key and qualifiers, values percent-encoded. */
export function identifierPath(primaryKey: AiValue, qualifiers: AiValue[]): string {
  return [primaryKey, ...qualifiers].map((p) => `/${p.ai}/${encodeDlValue(p.value)}`).join('');
}

/** `17=260101&3103=000500`: the canonical query of the data attributes (no leading `?`). */
export function attributesQuery(attributes: AiValue[]): string {
  return attributes.map((a) => `${a.ai}=${encodeDlValue(a.value)}`).join('&');
}
