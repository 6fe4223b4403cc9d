import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { mailtoPayload, smsPayload, wifiPayload, type WifiFields } from './encoders';
import { FieldReader, Input } from './fields';
import { emailPage, smsPage, textPage, wifiPage } from '../hosted-pages/content-pages';
import { badDestination, structured } from './structured';
import { defineHandler } from './target-handler';

export class TextTarget {
  @ApiProperty({ enum: ['text'] }) type!: string;
  @ApiPropertyOptional({ example: 'Welcome to our shop!', maxLength: 4000, description: 'The text (required unless `destination` is given)' }) text?: string;
  @ApiPropertyOptional({ example: 'Welcome to our shop!', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (the text itself); a static code encodes it as given' }) destination?: string;
}
export class EmailTarget {
  @ApiProperty({ enum: ['email'] }) type!: string;
  @ApiPropertyOptional({ example: 'hello@example.com', description: 'The address (required unless `destination` is given)' }) email?: string;
  @ApiPropertyOptional({ example: 'Question' }) subject?: string;
  @ApiPropertyOptional({ example: 'Hi,' }) message?: string;
  @ApiPropertyOptional({ type: [String], description: 'An array or a comma-separated string' }) cc?: string[];
  @ApiPropertyOptional({ type: [String] }) bcc?: string[];
  @ApiPropertyOptional({ example: 'mailto:hello@example.com?subject=Question', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (a mailto: URI); a static code encodes it as given' }) destination?: string;
}
export class SmsTarget {
  @ApiProperty({ enum: ['sms'] }) type!: string;
  @ApiPropertyOptional({ example: '+15551234567', description: 'The number (required unless `destination` is given)' }) phone?: string;
  @ApiPropertyOptional({ example: 'JOIN' }) message?: string;
  @ApiPropertyOptional({ example: 'SMSTO:+15551234567:JOIN', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (SMSTO:number:message); a static code encodes it as given' }) destination?: string;
}
export class WifiTarget {
  @ApiProperty({ enum: ['wifi'] }) type!: string;
  @ApiPropertyOptional({ example: 'Cafe Guest', maxLength: 32, description: 'The network name (required unless `destination` is given)' }) ssid?: string;
  @ApiPropertyOptional({ example: 'espresso42', description: 'Required unless encryption is nopass; 8–63 characters for WPA' }) password?: string;
  @ApiPropertyOptional({ enum: ['WPA', 'WEP', 'nopass'], default: 'WPA' }) encryption?: string;
  @ApiPropertyOptional({ default: false }) hidden?: boolean;
  @ApiPropertyOptional({ example: 'WIFI:T:WPA;S:Cafe Guest;P:espresso42;;', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (a WIFI: string); a static code encodes it as given' }) destination?: string;
}

/** Text, e-mail, SMS and Wi-Fi: static-capable; a dynamic code shows a hosted page with the content. */
export const textHandler = defineHandler(
  structured(
    'text',
    ['text'],
    (r) => ({ text: r.string('text', { required: true, max: 4000, trim: false }) }),
    (raw) => ({ text: raw }),
    (t) => t.text as string,
    { schema: TextTarget, scan: { page: (c) => textPage(c.target) } },
  ),
);

export const emailHandler = defineHandler(
  structured(
    'email',
    ['email', 'subject', 'message', 'cc', 'bcc'],
    (r) => ({
      email: r.email('email', { required: true }),
      subject: r.string('subject', { max: 255 }) ?? null,
      message: r.string('message', { max: 2000, trim: false }) ?? null,
      cc: r.emailList('cc') ?? [],
      bcc: r.emailList('bcc') ?? [],
    }),
    (raw, r) => {
      if (!/^mailto:/i.test(raw)) badDestination(r, 'a mailto: URI');
      const q = raw.indexOf('?');
      const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '');
      const email = decodeURIComponent(raw.slice(7, q >= 0 ? q : undefined));
      return {
        email,
        subject: params.get('subject') ?? undefined,
        message: params.get('body')?.replace(/\r\n/g, '\n') ?? undefined,
        cc: params.get('cc') ?? undefined,
        bcc: params.get('bcc') ?? undefined,
      };
    },
    (t) => mailtoPayload(t as never),
    { schema: EmailTarget, scan: { page: (c) => emailPage(c.target) } },
  ),
);

export const smsHandler = defineHandler(
  structured(
    'sms',
    ['phone', 'message'],
    (r) => ({ phone: r.phone('phone', { required: true }), message: r.string('message', { max: 1000, trim: false }) ?? null }),
    (raw, r) => {
      const smsto = /^SMSTO:([^:]*):?([\s\S]*)$/i.exec(raw);
      if (smsto) return { phone: smsto[1], message: smsto[2] || undefined };
      const sms = /^sms:([^?]*)(\?([\s\S]*))?$/i.exec(raw);
      if (sms) return { phone: decodeURIComponent(sms[1]), message: new URLSearchParams(sms[3] ?? '').get('body') ?? undefined };
      return badDestination(r, 'an SMSTO: or sms: URI');
    },
    (t) => smsPayload({ phone: t.phone as string, message: (t.message as string | null) ?? undefined }),
    { schema: SmsTarget, scan: { page: (c) => smsPage(c.target) } },
  ),
);

/** Splits `WIFI:T:WPA;S:net;P:pass;;` honouring backslash escapes. */
function parseWifi(raw: string, r: FieldReader): Input {
  if (!/^WIFI:/i.test(raw)) badDestination(r, 'a WIFI: string such as WIFI:T:WPA;S:MyNetwork;P:secret;;');
  const out: Record<string, string> = {};
  let key = '';
  let value = '';
  let inValue = false;
  const body = raw.slice(5);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && i + 1 < body.length) {
      if (inValue) value += body[++i];
      else key += body[++i];
    } else if (!inValue && ch === ':') {
      inValue = true;
    } else if (ch === ';') {
      if (key) out[key.toUpperCase()] = value;
      key = '';
      value = '';
      inValue = false;
    } else if (inValue) value += ch;
    else key += ch;
  }
  return { ssid: out.S, password: out.P || undefined, encryption: out.T || 'nopass', hidden: out.H === 'true' ? true : undefined };
}

export const wifiHandler = defineHandler(
  structured<WifiFields>(
    'wifi',
    ['ssid', 'password', 'encryption', 'hidden'],
    (r) => {
      const encryption = r.oneOf('encryption', ['WPA', 'WEP', 'nopass'] as const) ?? 'WPA';
      const ssid = r.string('ssid', { required: true, max: 32, trim: false })!;
      let password = r.string('password', { max: 63, trim: false }) ?? null;
      if (encryption === 'nopass') password = null;
      else if (!password) r.fail('password', `is required when encryption is ${encryption}`);
      else if (encryption === 'WPA' && password.length < 8) r.fail('password', 'must be 8 to 63 characters for WPA');
      return { ssid, password, encryption, hidden: r.boolean('hidden') ?? false };
    },
    parseWifi,
    wifiPayload,
    { schema: WifiTarget, scan: { page: (c) => wifiPage(c.target) } },
  ),
);
