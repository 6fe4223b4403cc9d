import { inflateRawSync } from 'node:zlib';

/** The entries of a ZIP as its central directory lists them: name and compression method (0 stored, 8 deflated). */
export function zipEntries(zip: Buffer): Array<{ name: string; method: number; size: number }> {
  const out: Array<{ name: string; method: number; size: number }> = [];
  for (let i = 0; i < zip.length - 46; i++) {
    if (zip.readUInt32LE(i) !== 0x02014b50) continue;
    const method = zip.readUInt16LE(i + 10);
    const size = zip.readUInt32LE(i + 24);
    const nameLength = zip.readUInt16LE(i + 28);
    out.push({ name: zip.subarray(i + 46, i + 46 + nameLength).toString('utf8'), method, size });
    i += 45 + nameLength;
  }
  return out;
}

/** The bytes of one entry (stored or deflated), read from its local header. */
export function zipEntry(zip: Buffer, name: string): Buffer | null {
  for (let i = 0; i < zip.length - 30; i++) {
    if (zip.readUInt32LE(i) !== 0x02014b50) continue;
    const nameLength = zip.readUInt16LE(i + 28);
    if (zip.subarray(i + 46, i + 46 + nameLength).toString('utf8') !== name) continue;
    const method = zip.readUInt16LE(i + 10);
    const compressed = zip.readUInt32LE(i + 20);
    const local = zip.readUInt32LE(i + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    return method === 0 ? data : inflateRawSync(data);
  }
  return null;
}
