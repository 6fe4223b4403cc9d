import {
  escapeWifi,
  foldLine,
  geoPayload,
  mailtoPayload,
  smsPayload,
  vcardPayload,
  veventPayload,
  wifiPayload,
} from './encoders';

describe('static payload encoders', () => {
  describe('wifi', () => {
    it('encodes the WIFI: form', () => {
      expect(wifiPayload({ ssid: 'Cafe', password: 'espresso42', encryption: 'WPA' })).toBe('WIFI:T:WPA;S:Cafe;P:espresso42;;');
    });
    it('escapes backslash, semicolon, comma, colon and double quote', () => {
      expect(escapeWifi('a\\b;c,d:e"f')).toBe('a\\\\b\\;c\\,d\\:e\\"f');
      expect(wifiPayload({ ssid: 'My;Net', password: 'p:a,s"s\\', encryption: 'WEP' })).toBe(
        'WIFI:T:WEP;S:My\\;Net;P:p\\:a\\,s\\"s\\\\;;',
      );
    });
    it('leaves the password empty for open networks and marks hidden ones', () => {
      expect(wifiPayload({ ssid: 'Guest', password: 'ignored', encryption: 'nopass' })).toBe('WIFI:T:nopass;S:Guest;P:;;');
      expect(wifiPayload({ ssid: 'X', password: 'longenough', encryption: 'WPA', hidden: true })).toBe('WIFI:T:WPA;S:X;P:longenough;H:true;;');
    });
  });

  describe('mailto (RFC 6068)', () => {
    it('encodes address only', () => {
      expect(mailtoPayload({ email: 'hi@example.com' })).toBe('mailto:hi@example.com');
    });
    it('percent-encodes subject and body with CRLF line breaks', () => {
      expect(mailtoPayload({ email: 'hi@example.com', subject: 'Hello & welcome', message: 'Line 1\nLine 2?' })).toBe(
        'mailto:hi@example.com?subject=Hello%20%26%20welcome&body=Line%201%0D%0ALine%202%3F',
      );
    });
    it('adds cc and bcc lists', () => {
      expect(mailtoPayload({ email: 'a@x.io', cc: ['b@x.io', 'c@x.io'], bcc: ['d@x.io'] })).toBe('mailto:a@x.io?cc=b@x.io,c@x.io&bcc=d@x.io');
    });
  });

  it('encodes SMSTO and geo', () => {
    expect(smsPayload({ phone: '+15551234567', message: 'Hi: there' })).toBe('SMSTO:+15551234567:Hi: there');
    expect(smsPayload({ phone: '+15551234567' })).toBe('SMSTO:+15551234567:');
    expect(geoPayload({ lat: 48.8584, lng: 2.2945 })).toBe('geo:48.8584,2.2945');
  });

  describe('vCard 3.0', () => {
    it('escapes a lone carriage return in a note', () => {
      const v = vcardPayload({ your_name: 'Ada', note: 'a\rBEGIN:VCARD\rb' });
      expect(v).toContain('NOTE:a\\nBEGIN:VCARD\\nb\r\n');
      expect(v.split('\r\n').every((line) => !line.includes('\r'))).toBe(true);
    });
    it('writes the properties with CRLF', () => {
      const v = vcardPayload({ your_name: 'Ada Lovelace', company_name: 'Analytical, Ltd', position: 'CTO', email: 'ada@example.com', phone_mobile: '+441234567890' });
      expect(v).toBe(
        [
          'BEGIN:VCARD',
          'VERSION:3.0',
          'N:Lovelace;Ada;;;',
          'FN:Ada Lovelace',
          'ORG:Analytical\\, Ltd',
          'TITLE:CTO',
          'TEL;TYPE=CELL:+441234567890',
          'EMAIL;TYPE=INTERNET:ada@example.com',
          'END:VCARD',
        ].join('\r\n'),
      );
    });
    it('folds long lines at 75 octets without splitting characters', () => {
      const v = vcardPayload({ your_name: 'Zoë', note: 'é'.repeat(100) });
      for (const line of v.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      const unfolded = v.replace(/\r\n /g, '');
      expect(unfolded).toContain(`NOTE:${'é'.repeat(100)}`);
    });
  });

  describe('iCalendar VEVENT', () => {
    it('writes UTC times and escapes text', () => {
      expect(veventPayload({ title: 'Launch; party', start: '2026-05-01T18:00:00.000Z', end: '2026-05-01T20:30:00.000Z', location: 'Hall 1, Berlin' })).toBe(
        ['BEGIN:VEVENT', 'SUMMARY:Launch\\; party', 'DTSTART:20260501T180000Z', 'DTEND:20260501T203000Z', 'LOCATION:Hall 1\\, Berlin', 'END:VEVENT'].join('\r\n'),
      );
    });
    it('escapes newlines in descriptions', () => {
      expect(veventPayload({ title: 'T', start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z', description: 'a\nb' })).toContain('DESCRIPTION:a\\nb');
    });
    it('escapes a lone carriage return too, so that stored text cannot start a line of its own', () => {
      const ics = veventPayload({ title: 'T', start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z', description: 'a\rEND:VEVENT\rb\r\nc', location: 'x\ry' });
      expect(ics).toContain('DESCRIPTION:a\\nEND:VEVENT\\nb\\nc\r\n');
      expect(ics).toContain('LOCATION:x\\ny\r\n');
      expect(ics.split('\r\n').every((line) => !line.includes('\r') && !line.includes('\n'))).toBe(true);
    });
  });

  it('folds at exactly 75 octets with a leading space on continuation lines', () => {
    const folded = foldLine('X'.repeat(200));
    const lines = folded.split('\r\n');
    expect(lines[0]).toHaveLength(75);
    expect(lines[1].startsWith(' ')).toBe(true);
    expect(lines[1]).toHaveLength(75);
    expect(folded.replace(/\r\n /g, '')).toBe('X'.repeat(200));
  });
});
