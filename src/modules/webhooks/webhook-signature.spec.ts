import Stripe from 'stripe';
import { newWebhookSecret, SecretBox, signatureHeader, signatureV1 } from './webhook-signature';

describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'ping', created_at: '2026-01-01T00:00:00.000Z', data: {} });

  it('signs <t>.<body> with HMAC-SHA256 keyed by the whole whsec_ string', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const t = Math.floor(Date.now() / 1000);
    const header = signatureHeader([secret], t, body);
    expect(header).toBe(`t=${t},v1=${signatureV1(secret, t, body)}`);
    const event = Stripe.webhooks.constructEvent(body, header, secret);
    expect(event.id).toBe('evt_1');
  });

  it('puts the new secret first and the old one second, and either verifies', () => {
    const [next, prev] = [newWebhookSecret(), newWebhookSecret()];
    const t = Math.floor(Date.now() / 1000);
    const header = signatureHeader([next, prev], t, body);
    expect(header.split(',')).toEqual([`t=${t}`, `v1=${signatureV1(next, t, body)}`, `v1=${signatureV1(prev, t, body)}`]);
    expect(() => Stripe.webhooks.constructEvent(body, header, next)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(body, header, prev)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(body, header, newWebhookSecret())).toThrow();
  });

  it('seals secrets at rest and opens them only with the same app secret', () => {
    const box = new SecretBox('an-app-secret-of-16+');
    const secret = newWebhookSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(() => new SecretBox('another-app-secret!!').open(sealed)).toThrow();
  });
});
