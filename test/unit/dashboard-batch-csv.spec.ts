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
  });
});
