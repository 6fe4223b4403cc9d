import type { CachedCode } from './scan-contract';
import { ScanNumbers } from './scan-numbers';

const code = (scanCount: number): CachedCode => ({ id: 'qr_1', organizationId: 'org_1', shortCode: 'aB3dE9x', name: 'x', type: 'url', target: {}, status: 'live', isActive: true, scanCount });

describe('scan numbers', () => {
  it('counts on from the stored count, and never goes back when a refill reads a lagging count', () => {
    const numbers = new ScanNumbers();
    expect(numbers.current(code(10))).toBe(10);
    numbers.add(code(10));
    numbers.add(code(10));
    expect(numbers.current(code(10))).toBe(12);
    // The cache refilled while two scans were still on their way to the database: the count stays 12.
    expect(numbers.current(code(11))).toBe(12);
    // Another process's scans reached the database: the stored count leads.
    expect(numbers.current(code(20))).toBe(20);
    numbers.add(code(20));
    expect(numbers.current(code(20))).toBe(21);
  });
});
