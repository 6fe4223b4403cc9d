import { CopyFieldBytes } from './scan-copy';

/** A one-column COPY BINARY stream of `fields` (null = SQL null), as PostgreSQL frames it. */
function framed(fields: (string | null)[]): Buffer {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.from([0, 0, 0, 0]), Buffer.from([0, 0, 0, 4]), Buffer.from('ext!')]);
  const rows = fields.map((f) => {
    const head = Buffer.alloc(6);
    head.writeInt16BE(1, 0);
    if (f === null) {
      head.writeInt32BE(-1, 2);
      return head;
    }
    const body = Buffer.from(f, 'utf8');
    head.writeInt32BE(body.length, 2);
    return Buffer.concat([head, body]);
  });
  return Buffer.concat([header, ...rows, Buffer.from([0xff, 0xff])]);
}

async function run(chunks: Buffer[]): Promise<string> {
  const t = new CopyFieldBytes();
  const out: Buffer[] = [];
  t.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((r) => t.on('end', r));
  for (const c of chunks) t.write(c);
  t.end();
  await ended;
  return Buffer.concat(out).toString('utf8');
}

describe('CopyFieldBytes', () => {
  const fields = ['a,b\r\n', '{"id":"scan_1","city":"Saint-Denis, \\"Nord\\""}\n', null, 'é€😀\n', ''];
  const expected = fields.filter((f) => f !== null).join('');
  const whole = framed(fields);

  it('passes on the field bytes of each row, without the header, lengths or trailer', async () => {
    expect(await run([whole])).toBe(expected);
  });

  it('gives the same bytes whatever the chunk boundaries (every split point, and one byte at a time)', async () => {
    for (let i = 1; i < whole.length; i++) {
      expect(await run([whole.subarray(0, i), whole.subarray(i)])).toBe(expected);
    }
    expect(await run([...whole].map((b) => Buffer.from([b])))).toBe(expected);
  });
});
