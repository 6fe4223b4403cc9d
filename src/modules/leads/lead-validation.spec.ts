import type { FormDefinition } from '../hosted-pages/form-page';
import { checkLead } from './lead-validation';

const form: FormDefinition = {
  title: 'Contact',
  consentText: 'I agree.',
  fields: [
    { name: 'name', label: 'Name', type: 'text', required: true },
    { name: 'email', label: 'E-mail', type: 'email', required: false },
    { name: 'phone', label: 'Phone', type: 'phone', required: false },
    { name: 'guests', label: 'Guests', type: 'number', required: false },
    { name: 'day', label: 'Day', type: 'date', required: false },
    { name: 'note', label: 'Note', type: 'textarea', required: false },
    { name: 'terms', label: 'Terms', type: 'checkbox', required: true },
  ],
};

describe('checkLead', () => {
  it('stores typed, normalized values and ignores unknown keys', () => {
    expect(
      checkLead(form, { name: ' Ada ', email: 'ada@example.com', phone: '+44 (20) 7946-0958', guests: '2.5', day: '2026-02-28', note: 'a\r\nb', terms: 'yes', consent: 'yes', website: '', extra: 'x' }),
    ).toEqual({ outcome: 'valid', fields: { name: 'Ada', email: 'ada@example.com', phone: '+442079460958', guests: 2.5, day: '2026-02-28', note: 'a\nb', terms: true } });
    expect(checkLead(form, { name: ['First', 'Second'], terms: 'on', consent: 'on' })).toEqual({
      outcome: 'valid',
      fields: { name: 'First', email: null, phone: null, guests: null, day: null, note: null, terms: true },
    });
  });

  it('refuses a value holding control characters: the form again, the message under that field, the value shown without them', () => {
    const r = checkLead(form, { name: 'A\u0001B', note: 'x\u0000y', terms: 'yes', consent: 'yes' });
    expect(r).toMatchObject({
      outcome: 'invalid',
      state: { values: { name: 'AB', note: 'xy' }, errors: { name: expect.stringMatching(/control characters/), note: expect.stringMatching(/control characters/) } },
    });
  });

  it('answers a filled honeypot as a bot before anything else', () => {
    expect(checkLead(form, { website: 'https://spam.example.com' })).toEqual({ outcome: 'bot' });
  });

  it('names each invalid field and keeps the submitted values', () => {
    const r = checkLead(form, { name: '', email: 'nope', phone: '12', guests: '1e', day: '2026-02-30', note: 'x'.repeat(1001) });
    expect(r.outcome).toBe('invalid');
    if (r.outcome !== 'invalid') return;
    expect(Object.keys(r.state.errors).sort()).toEqual(['consent', 'day', 'email', 'guests', 'name', 'note', 'phone', 'terms']);
    expect(r.state.values).toMatchObject({ email: 'nope', day: '2026-02-30' });
    expect(r.state.values.consent).toBeUndefined();
  });

  it('takes "no", "false", "0" or "off" as an unticked box, for consent and for checkbox fields', () => {
    for (const no of ['no', 'false', '0', 'off', 'x']) {
      const r = checkLead(form, { name: 'Ada', terms: no, consent: no });
      expect(r.outcome).toBe('invalid');
      if (r.outcome !== 'invalid') return;
      expect(Object.keys(r.state.errors).sort()).toEqual(['consent', 'terms']);
      expect(r.state.values.terms).toBe('');
    }
    const optional: FormDefinition = { ...form, fields: [{ name: 'news', label: 'News', type: 'checkbox', required: false }] };
    expect(checkLead(optional, { news: 'no', consent: 'yes' })).toEqual({ outcome: 'valid', fields: { news: false } });
  });
});
