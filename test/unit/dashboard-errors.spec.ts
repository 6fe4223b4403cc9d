import { ApiError, fieldErrors, toApiError } from '../../web/src/api/errors';

/** The dashboard's mapping of the API's error envelope onto form fields (web/src/api/errors.ts). */
describe('dashboard fieldErrors', () => {
  const err = (field?: string, fields?: string[]) => new ApiError({ status: 400, code: 'invalid_request', message: `bad ${field}`, field, fields });

  it('puts the message on the field the API names', () => {
    expect(fieldErrors(err('target.destination'), ['name', 'target.destination'])).toEqual({ fields: { 'target.destination': 'bad target.destination' } });
  });

  it('lands a nested or indexed field on its closest known parent', () => {
    expect(fieldErrors(err('target.links[1].url'), ['target.links'])).toEqual({ fields: { 'target.links': 'bad target.links[1].url' } });
    expect(fieldErrors(err('design.colors.background'), ['design.colors'])).toEqual({ fields: { 'design.colors': 'bad design.colors.background' } });
  });

  it('names every field of `fields`', () => {
    expect(fieldErrors(err('a', ['a', 'b']), ['a', 'b']).fields).toEqual({ a: 'bad a', b: 'bad a' });
  });

  it('is a general message when no known field matches or none is named', () => {
    expect(fieldErrors(err('other'), ['name'])).toEqual({ fields: {}, general: 'bad other' });
    expect(fieldErrors(err(), ['name'])).toEqual({ fields: {}, general: 'bad undefined' });
    expect(fieldErrors(new Error('socket hang up'), ['name']).general).toMatch(/could not be reached/);
  });

  it('reads the envelope, the request id and Retry-After of an answer', () => {
    const res = new Response('', { status: 429, headers: { 'retry-after': '7', 'request-id': 'req_h' } });
    const e = toApiError(res, { error: { code: 'rate_limited', message: 'slow down', request_id: 'req_b' } });
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', message: 'slow down', requestId: 'req_b', retryAfterMs: 7000, retryable: true });
    const bare = toApiError(new Response('', { status: 503 }), undefined);
    expect(bare).toMatchObject({ code: 'service_unavailable', retryable: true });
    expect(err('x').retryable).toBe(false);
  });
});
