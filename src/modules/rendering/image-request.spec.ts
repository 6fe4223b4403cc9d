import { ApiException } from '../../common/errors/api.exception';
import { parseImageRequest } from './image-request';

const field = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as ApiException).extras.field as string;
  }
  return undefined;
};

describe('parseImageRequest', () => {
  it('reads size as decimal digits only, and print_mm as a decimal number', () => {
    expect(parseImageRequest({ format: 'png', size: '600' }).size).toBe(600);
    for (const size of ['0x100', '0b11111111', '0o777', '1e3', ' 500', '+500', '1000.0', '', '600px']) {
      expect([size, field(() => parseImageRequest({ format: 'png', size }))]).toEqual([size, 'size']);
    }
    expect(parseImageRequest({ format: 'pdf', print_mm: '25.5' }).printMm).toBe(25.5);
    expect(field(() => parseImageRequest({ format: 'pdf', print_mm: '1e2' }))).toBe('print_mm');
  });
});
