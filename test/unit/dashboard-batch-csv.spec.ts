import { lineOfItemField, parseBatchCsv } from '../../web/src/screens/batches/batch-csv';

describe('parseBatchCsv', () => {
  it('turns rows into batch items, inferring the target type as the API does', () => {
    const csv = 'name,destination,tags,kind\n"Table 1, window",https://example.com/t/1,a;b,static\nWi-Fi,,,\n';
    const parsed = parseBatchCsv(csv.replace('Wi-Fi,,,', 'Menu,https://example.com/m,,'));
    expect(parsed.errors).toEqual([]);
    expect(parsed.rows.map((r) => r.item)).toEqual([
      { name: 'Table 1, window', type: 'static', tags: ['a', 'b'], target: { destination: 'https://example.com/t/1' } },
      { name: 'Menu', target: { destination: 'https://example.com/m' } },
    ]);
  });

  it('names each bad row and the file-wide problems', () => {
    const parsed = parseBatchCsv('name,destination,colour,kind\nA,ftp://x,red,dynamic\nB,,blue,later\n');
    expect(parsed.errors).toEqual(['Unknown column: colour']);
    expect(parsed.rows[0]).toMatchObject({ line: 2, errors: ['destination must be an http(s) URL'] });
    expect(parsed.rows[1].errors).toEqual(['No target: fill destination, text, email, phone, ssid, or title and start', 'kind must be dynamic or static']);
  });

  it('reads wifi, e-mail and UTM columns, and refuses an empty file', () => {
    const parsed = parseBatchCsv('ssid,password,encryption,email,utm_source\nCafe,secret,WPA,,\n,,,x@example.com,\n');
    expect(parsed.rows[0].item.target).toEqual({ ssid: 'Cafe', password: 'secret', encryption: 'WPA' });
    expect(parsed.rows[1].item.target).toEqual({ email: 'x@example.com' });
    expect(parseBatchCsv('name,destination\n').errors).toContain('The file has no rows under its header line');
  });

  it('maps an API error path to its CSV line', () => {
    expect(lineOfItemField('items[3].target.destination')).toBe(5);
    expect(lineOfItemField('design.colors')).toBeUndefined();
    const parsed = parseBatchCsv('name,destination\n\nA,https://example.com/a\n\n\nB,https://example.com/b\n');
    expect(lineOfItemField('items[1].target.destination', parsed.rows)).toBe(6);
  });

  it('numbers rows by the line they start on, counting empty lines and line breaks inside quoted fields', () => {
    const spaced = parseBatchCsv('name,destination\n\nA,https://example.com/a\n\n\nB,notaurl\n');
    expect(spaced.rows.map((r) => [r.line, r.item.name, r.errors])).toEqual([
      [3, 'A', []],
      [6, 'B', ['destination must be an http(s) URL']],
    ]);
    const quoted = parseBatchCsv('name,text\r\n"line1\r\nline2",hello\r\nC,\r\n  D,\r\n');
    expect(quoted.rows.map((r) => [r.line, r.item.name])).toEqual([
      [2, 'line1\r\nline2'],
      [4, 'C'],
      [5, 'D'],
    ]);
    // Blank lines before the header, and a quoted header with a line break in it.
    const header = parseBatchCsv('\n\n"na\nme",destination\nX,https://example.com/x\n');
    expect(header.rows.map((r) => r.line)).toEqual([5]);
    // A row with too many fields is named by its line.
    expect(parseBatchCsv('name,destination\n\nA,https://example.com/a,extra\n').errors[0]).toMatch(/^Line 3: /);
  });
});
