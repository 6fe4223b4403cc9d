import { normalizeHostname, serviceHosts } from './hostname';

const OWN = ['api.scanlink.example', 'scan.scanlink.example'];
const ok = (input: string) => normalizeHostname(input, OWN);

describe('normalizeHostname', () => {
  it.each([
    ['go.acme.example', 'go.acme.example'],
    ['Go.ACME.Example', 'go.acme.example'],
    ['go.acme.example.', 'go.acme.example'],
    ['Bücher.Example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['ＡＢＣ.com', 'abc.com'],
    ['a-b.c0.io', 'a-b.c0.io'],
  ])('normalizes %s to %s', (input, hostname) => {
    expect(ok(input)).toEqual({ hostname });
  });

  it.each([
    ['', 'empty'],
    ['localhost', 'two labels'],
    ['example', 'two labels'],
    ['1.2.3.4', 'IP address'],
    ['0x7f.1', 'IP address'],
    ['127.1', 'IP address'],
    ['[::1]', 'bare host name'],
    ['::1', 'bare host name'],
    ['https://go.acme.example', 'bare host name'],
    ['go.acme.example:443', 'bare host name'],
    ['go.acme.example/x', 'bare host name'],
    ['go acme.example', 'bare host name'],
    [' go.acme.example', 'bare host name'],
    ['a..b', 'not a valid domain name'],
    ['-a.example', 'not a valid domain name'],
    ['a-.example', 'not a valid domain name'],
    ['ex_ample.com', 'not a valid domain name'],
    ['xn--zz.com', 'not a valid domain name'],
    ['go.acme.123', 'IP address'],
    [`${'a'.repeat(64)}.example`, 'not a valid domain name'],
    [`${'a.'.repeat(130)}example`, '253'],
    ['ab\u0000.com', 'not a valid domain name'],
    ['SCAN.scanlink.example', "service's own hosts"],
    ['go.localhost', 'not a public domain name'],
    ['printer.local', 'not a public domain name'],
    ['x.invalid', 'not a public domain name'],
  ])('refuses %j (%s)', (input, why) => {
    const res = ok(input);
    expect('error' in res && res.error).toContain(why);
  });
});

describe('serviceHosts', () => {
  it('takes the host names of the base URLs, without ports or duplicates', () => {
    expect(serviceHosts(['http://localhost:3000/v1', 'http://localhost:3001', 'https://CDN.example/images'])).toEqual(['localhost', 'cdn.example']);
  });
});
