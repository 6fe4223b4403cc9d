import { envelopeCode } from './access-log';

describe('envelopeCode (the code on an error answer access line)', () => {
  it('reads every error code, including ones with digits (gs1_identifier_taken)', () => {
    expect(envelopeCode('{"error":{"code":"gs1_identifier_taken","message":"taken"}}')).toBe('gs1_identifier_taken');
    expect(envelopeCode('{"error":{"code":"idempotency_conflict","message":"x"}}')).toBe('idempotency_conflict');
    expect(envelopeCode(Buffer.from('{"error":{"message":"x","code":"unauthorized"}}'))).toBe('unauthorized');
  });

  it('is undefined for bodies that are not an error envelope', () => {
    expect(envelopeCode('<!doctype html><title>Not found</title>')).toBeUndefined();
    expect(envelopeCode('{"error":{"code":42}}')).toBeUndefined();
    expect(envelopeCode('{"error":')).toBeUndefined();
    expect(envelopeCode('null')).toBeUndefined();
    expect(envelopeCode(undefined)).toBeUndefined();
  });
});
