import sharp from 'sharp';
import { ApiException } from '../../common/errors/api.exception';
import { parseDesign } from '../rendering/design';
import { PngRenderPool, PngRenderProcess } from './png-render-process';

describe('PngRenderProcess', () => {
  const renderer = new PngRenderProcess(2);
  afterAll(() => renderer.stop());

  it('draws PNGs in a child process, across recycled children, and passes refusals back', async () => {
    const design = parseDesign({ shapes: { body: 'dots' } });
    // Five images with a new child every two: none is lost when a recycled child exits.
    const pngs = await Promise.all([0, 1, 2, 3, 4].map((i) => renderer.render(`https://scan.example/Ab${i}dE9x`, design, null, 1600)));
    for (const png of pngs) expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1600, height: 1600 });
    const refused = await renderer.render('x'.repeat(200), design, null, 100).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException).extras.field).toBe('size');
  }, 120_000);
});

describe('PngRenderPool', () => {
  it('spreads concurrent images over its children, each drawing two at once, and answers each request with its own image', async () => {
    const pool = new PngRenderPool(2, 200, 2);
    const spy = jest.spyOn(PngRenderProcess.prototype, 'render');
    try {
      expect(pool.capacity).toBe(4);
      const design = parseDesign({ colors: { foreground: '#1a237e' } });
      const sizes = [1600, 1700, 1800, 1900, 2000];
      const pngs = await Promise.all(sizes.map((size, i) => pool.render(`https://scan.example/Pool${i}`, design, null, size)));
      for (const [i, png] of pngs.entries()) expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: sizes[i] });
      // Five requests on two children of two places each: 3 + 2 (the fifth waits at the first child).
      const used = spy.mock.contexts;
      expect(new Set(used).size).toBe(2);
      expect(used.filter((c) => c === used[0]).length).toBe(3);
    } finally {
      spy.mockRestore();
      pool.stop();
    }
  }, 120_000);
});
